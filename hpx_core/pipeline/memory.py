"""A run's memory plan: the engine's buffers placed before any source is fetched, and what a
linker overflow means for it.

An overflow in a region that holds a buffer hpx placed by itself is not the user's to fix:
the overflow tells how much code the region really took, and the buffers are placed again
with that (once). Otherwise the overflow is reported in the plan's own sentence.
"""

from __future__ import annotations

import math

import attrs

from hpx_core.contract import (
    CodeSize,
    FirmwareContribution,
    MemoryLayout,
    MemoryRequest,
    PlannedBuffer,
)
from hpx_core.errors import ConfigError, HpxError, PluginError
from hpx_core.firmware.builder import RegionOverflowError
from hpx_core.firmware.layout import link_overflow, linked_code, plan_layout
from hpx_core.log import get_logger
from hpx_core.models import ModelInfo
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import MemoryPlan

log = get_logger(__name__)


def plan_memory(ctx: RunContext, model: ModelInfo) -> MemoryPlan:
    """Ask the engine what it will place (an optional hook) and place it on the board."""
    check_tensors_fit(ctx, model)
    section = ctx.config.model
    request = MemoryRequest(ctx.engine, ctx.board, model, arena_size=section.arena_size,
                            location=section.location, arena_location=section.arena_location)
    needs = ctx.hooks.plan_memory(ctx.engine.name, request)
    return MemoryPlan(needs, plan_layout(ctx.board, needs) if needs is not None else None)


def with_planned_buffers(contribution: FirmwareContribution, layout: MemoryLayout | None
                         ) -> FirmwareContribution:
    """The contribution's buffers with every planned buffer that names its symbol, to be
    checked after the link where the plan put it: one declaration per buffer, the plan's."""
    if layout is None:
        return contribution
    planned = [PlannedBuffer(p.need.what, p.need.symbol, p.need.size, (p.word,))
               for p in layout.placements if p.need.symbol is not None]
    twice = {b.symbol for b in planned} & {b.symbol for b in contribution.buffers}
    if twice:
        raise PluginError(
            f"{', '.join(sorted(twice))} is declared twice: by hpx_plan_memory (BufferNeed."
            "symbol) and in FirmwareContribution.buffers",
            "leave planned buffers out of FirmwareContribution.buffers: the core checks them "
            "where the plan put them",
        )
    return attrs.evolve(contribution, buffers=(*planned, *contribution.buffers))


def check_tensors_fit(ctx: RunContext, model: ModelInfo) -> None:
    """Refuse a model with a tensor larger than the board's largest data memory, before any
    input is made for it (a few hundred bytes of model can name a tensor of gigabytes)."""
    board = ctx.board
    room = max((r.length for r in board.memory if r.zero is not None), default=0)
    tensors = [(f"{kind} {t.name or i}", t.size_bytes)
               for kind, group in (("input", model.inputs), ("output", model.outputs))
               for i, t in enumerate(group)]
    tensors += [(f"operator {op.index} ({op.name}) output {j}", math.prod(shape))
                for op in model.operators for j, shape in enumerate(op.outputs)]
    for what, size in tensors:
        if size is not None and size > room:
            raise ctx.validated.document.error(
                "model.path",
                f"{model.path.name}: {what} takes {size:,} bytes, more than {board.name}'s "
                f"largest data memory ({room:,} bytes)",
                "this model cannot run on this board; check its tensor shapes, or choose a "
                "board with more memory")


def overflow_sentence(ctx: RunContext, plan: MemoryPlan,
                      overflow: RegionOverflowError) -> HpxError:
    """The plan's sentence for the linker's overflow (the bare overflow without a plan)."""
    if plan.layout is None:
        return overflow
    return link_overflow(ctx.board, plan.layout, overflow.region, overflow.excess)


def replan_after_overflow(ctx: RunContext, plan: MemoryPlan,
                          overflow: RegionOverflowError) -> MemoryPlan:
    """The buffers placed again, knowing the code's real size.

    Raises the plan's sentence instead when the overflow is the user's placement, or when no
    other plan fits.
    """
    board, layout, needs = ctx.board, plan.layout, plan.needs
    error = overflow_sentence(ctx, plan, overflow)
    if layout is None or needs is None:
        raise error
    automatic = any(p.region == overflow.region and not p.chosen for p in layout.placements)
    if not automatic or overflow.excess is None or layout.code_region != overflow.region:
        raise error
    code = linked_code(board, layout, overflow.region, overflow.excess)
    try:
        again = plan_layout(board, attrs.evolve(needs, code=CodeSize(code, code)))
    except ConfigError:
        raise error from None
    if again.placements == layout.placements:
        raise error
    log.info("replan", region=overflow.region, code=code)
    return MemoryPlan(needs, again)
