"""The constants that make SysTick spans exact instructions under QEMU -icount."""

from __future__ import annotations

import attrs
import pytest

from hpx_core.boards import get_board
from hpx_core.boards.icount import TickConversion, tick_conversion, wrap_cost_q16
from hpx_core.errors import ConfigError


def test_a_tick_is_a_power_of_two_fraction_of_an_instruction() -> None:
    # shift 10: 1024 ns per instruction; 31.25 ns ticks (32 MHz) and 40 ns ticks (25 MHz)
    assert tick_conversion(get_board("qemu-m55")) == TickConversion(125, 12)  # 125/4096
    assert tick_conversion(get_board("qemu-m4")) == TickConversion(5, 7)  # 5/128


def test_the_wrap_handler_costs_five_instructions_in_ticks() -> None:
    assert wrap_cost_q16(get_board("qemu-m55")) == round(5 * 32.768 * 65536)
    assert wrap_cost_q16(get_board("qemu-m4")) == 128 * 65536


def test_silicon_counts_are_not_converted() -> None:
    board = get_board("apollo510_evb")
    assert tick_conversion(board) == TickConversion(1, 0) and wrap_cost_q16(board) == 0


@pytest.mark.parametrize("shift", [5, 6])
def test_too_few_ticks_per_instruction_cannot_be_exact(shift: int) -> None:
    """The old shift 5 (1.024 ticks per instruction) rounded spans one instruction apart."""
    board = get_board("qemu-m55")
    assert board.qemu is not None
    slow = attrs.evolve(board, qemu=attrs.evolve(board.qemu, icount_shift=shift))
    with pytest.raises(ConfigError, match="cannot give exact counts") as caught:
        tick_conversion(slow)
    assert "icount_shift" in caught.value.hint
