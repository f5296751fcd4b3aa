"""Exact instruction counts from SysTick under QEMU ``-icount``: the constants the firmware needs.

Under ``-icount shift=N`` every instruction advances virtual time by 2**N ns and SysTick ticks
at the machine's clock, so ``ticks = instructions * r`` with ``r = 2**N * clock_hz / 1e9`` ticks
per instruction. A read is the floor of that (and the wrap handler's correction another floor),
so the ticks between two reads are ``r * n`` give or take two ticks. The firmware converts
every begin/end span to instructions, rounded to the nearest: that is ``n`` exactly when the
two ticks are less than half an instruction, ``r > 4``. Neither machine's clock (32 MHz, 25 MHz)
is a power of two in ns, so no shift makes one tick one instruction; the largest shift QEMU
allows (10) gives r = 32.768 (mps3-an547) and 25.6 (mps2-an386).
"""

from __future__ import annotations

import attrs

from hpx_core.boards.model import Board
from hpx_core.errors import ConfigError

# Instructions of the SysTick wrap handler (counters/systick_icount/counter_systick.c).
SYSTICK_HANDLER_INSTRUCTIONS = 5
MIN_TICKS_PER_INSTRUCTION = 4  # reads are off by less than 2 ticks: half an instruction at 4
COUNTER = "systick_icount"


@attrs.frozen
class TickConversion:
    """Instructions per tick as ``multiplier / 2**shift``: a span converts with one multiply."""

    multiplier: int
    shift: int


def _emulated_systick(board: Board) -> bool:
    return board.counter == COUNTER and board.qemu is not None


def wrap_cost_q16(board: Board) -> int:
    """Ticks one SysTick wrap handler costs under icount, in 16.16 fixed point (0 if none)."""
    if not _emulated_systick(board):
        return 0
    ticks = SYSTICK_HANDLER_INSTRUCTIONS / board.instructions_per_tick()
    return round(ticks * 65536)


def tick_conversion(board: Board) -> TickConversion:
    """The exact tick-to-instruction ratio as a multiplier and a shift (1/2**0 when none).

    A board whose icount shift leaves fewer than four ticks per instruction, or whose ratio has
    no power-of-two denominator, cannot be counted exactly: a ConfigError names why.
    """
    if not _emulated_systick(board):
        return TickConversion(1, 0)
    ratio = board.instructions_per_tick()
    denominator = ratio.denominator
    if denominator & (denominator - 1) or 1 / ratio < MIN_TICKS_PER_INSTRUCTION:
        raise ConfigError(
            f"board {board.name}: {float(1 / ratio):g} SysTick ticks per instruction "
            f"({ratio} instructions per tick) cannot give exact counts",
            f"raise qemu.icount_shift so a tick is at most 1/{MIN_TICKS_PER_INSTRUCTION} of "
            "an instruction, with a power-of-two ratio",
        )
    return TickConversion(ratio.numerator, denominator.bit_length() - 1)
