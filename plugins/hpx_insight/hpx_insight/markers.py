"""Where the harness measures, read from the linked ELF: the plugin's marker addresses.

The layer windows SysTick measures open and close inside ``hpx_layer_begin`` and
``hpx_layer_end`` (the counter reads, and the store to ``hpx_slot_open[index]`` that names the
layer); ``SysTick_Handler`` is the wrap handler whose instructions the counter subtracts. The
array ``hpx_slot_open`` has one byte per slot, the layers' and the reserved one (calibration and
whole inference), so its size is the harness's ``HPX_MAX_LAYERS + 1``.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.sdk import RunError
from hpx_core.sdk.firmware import Board, symbol_inventory
from hpx_core.sdk.passes import Symbol

SYST_CVR = 0xE000_E018
"""SysTick's current value register: what the systick_icount backend reads."""
COUNTER = "systick_icount"


@attrs.frozen
class Span:
    """A half-open address range."""

    start: int
    end: int

    def arg(self) -> str:
        return f"0x{self.start:x}:0x{self.end:x}"


@attrs.frozen
class Markers:
    """The harness's measuring points in one ELF."""

    begin: Span
    end: Span
    wrap_handler: Span
    slot_open: int
    slots: int

    @property
    def reserved(self) -> int:
        """The calibration / whole-inference slot (``HPX_MAX_LAYERS``)."""
        return self.slots - 1


def _span(symbol: Symbol) -> Span:
    start = symbol.address & ~1
    return Span(start, start + symbol.size)


def find_markers(elf: Path, board: Board) -> Markers:
    """The marker addresses of ``elf`` (built by hpx's harness for ``board``)."""
    if board.qemu is None or board.counter != COUNTER:
        raise RunError(
            f"instruction profiles run on the emulated boards; {board.name} is {board.kind}",
            "profile on qemu-m55 or qemu-m4 and estimate for the silicon board",
        )
    inventory = symbol_inventory(elf)
    found = {s.name: s for s in inventory.symbols if s.size > 0}
    wanted = ("hpx_layer_begin", "hpx_layer_end", "SysTick_Handler", "hpx_slot_open")
    missing = [name for name in wanted if name not in found]
    if missing:
        raise RunError(f"{elf.name} has no {', '.join(missing)}: it was not built by hpx's "
                       f"harness with the {COUNTER} counter",
                       "profile an ELF that hpx built for an emulated board")
    return Markers(_span(found["hpx_layer_begin"]), _span(found["hpx_layer_end"]),
                   _span(found["SysTick_Handler"]), found["hpx_slot_open"].address,
                   found["hpx_slot_open"].size)
