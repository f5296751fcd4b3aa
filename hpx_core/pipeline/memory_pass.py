"""The memory pass as a run's uncounted pass: what the device measured (stack, arenas, heap per
layer; :mod:`hpx_core.results.memory`) joined to what the run planned and linked.

Each buffer the device names with its start (``<buffer>.at``) is found in the board's memory
map and among the linked firmware's planned buffers, so the bundle says, per buffer, the bytes
configured, placed in which region, planned and used; each region of the map is listed with
what the firmware takes in it, for the report's bars. One of the core's own passes
(:mod:`hpx_core.pipeline.passes`).
"""

from __future__ import annotations

import attrs

from hpx_core.boards import Board
from hpx_core.contract import FirmwareContribution
from hpx_core.firmware.placement import PlacementReport
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import HarnessRequest
from hpx_core.results.memory import (
    SECTION,
    BufferPlace,
    MemoryUse,
    PlacedPart,
    RegionFill,
    memory_use,
)
from hpx_core.results.memory_text import layer_cells, layer_columns, summary_lines
from hpx_core.run.pass_result import ConsoleSummary, PassResult

NAME = "memory"
"""The pass's name: its result in ``RunRecord.passes``."""


def buffer_places(use: MemoryUse, board: Board, report: PlacementReport
                  ) -> dict[str, BufferPlace]:
    """The region and the planned symbol each buffer the device located lies in."""
    places: dict[str, BufferPlace] = {}
    for name, at in use.addresses().items():
        region = next((r.name for r in board.memory
                       if r.origin <= at < r.origin + r.length), None)
        if region is None:
            continue
        holder = next((p for p in report.buffers if p.address <= at < p.address + p.size), None)
        places[name] = BufferPlace(region, holder.buffer.symbol if holder else None,
                                   holder.size if holder else None)
    return places


def region_fills(report: PlacementReport) -> tuple[RegionFill, ...]:
    """Every region of the board's map with what the linked firmware takes in it."""
    return tuple(
        RegionFill(used.region.name, used.region.length, used.used,
                   tuple(PlacedPart(p.buffer.symbol, p.buffer.what, p.size)
                         for p in report.buffers if p.region == used.region.name))
        for used in report.regions)


@attrs.frozen
class MemoryPass:
    """``profiling.memory`` (default on): the stack, the engine's arenas and the heap in use,
    per layer and whole. Every engine gets the stack; arenas are what its glue reports."""

    name: str = NAME

    def check(self, ctx: RunContext) -> None:
        """Every board and engine can: the harness measures the stack itself."""

    def wanted(self, ctx: RunContext) -> bool:
        return ctx.config.profiling.memory

    def harness(self, ctx: RunContext, contribution: FirmwareContribution) -> HarnessRequest:
        return HarnessRequest({"HPX_MEMORY_PASS"})

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassResult[MemoryUse | None]:
        known = inputs.extras.memory if inputs.extras is not None else None
        use = memory_use(inputs.capture, known)
        if use is None:
            return PassResult(None, SECTION, {"note": "the firmware sent no memory records"})
        report = inputs.built.placement
        use = attrs.evolve(use, places=buffer_places(use, ctx.board, report),
                           regions=region_fills(report))
        return PassResult(use, SECTION, use.to_json(), {}, shown(use))


def shown(use: MemoryUse) -> ConsoleSummary:
    """The stack and each arena per layer as columns, the whole inference's as lines."""
    lines = ("memory, in one uncounted inference:", *(f"  {x}" for x in summary_lines(use)))
    return ConsoleSummary(tuple(layer_columns(use)),
                          {x.index: tuple(layer_cells(use, x.index)) for x in use.layers},
                          lines=lines)
