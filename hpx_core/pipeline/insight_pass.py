"""The instruction-profile pass and the cycle estimate it feeds, as one uncounted pass.

After the timed run is judged, the same ELF runs once more under QEMU with hpx's TCG plugin
(:mod:`hpx_core.insight`): each layer's instructions by class, memory traffic per region (and
per planned buffer) and hottest code, checked equal to the harness's SysTick counts. With
``profiling.estimate_for`` the profile becomes estimated cycles on that Apollo board, its
buffers mapped to the regions that board's own memory plan gives them. What the pass needs is
refused before anything is fetched (:func:`check_insight`, the pass's check): a silicon board,
a host without a C compiler, a QEMU without plugins, a board the cycle model does not cover.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from hpx_core.boards import Board, get_board
from hpx_core.contract import FirmwareContribution, MemoryRequest
from hpx_core.errors import RunError, UsageError
from hpx_core.firmware.layout import plan_layout
from hpx_core.models import ModelInfo
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import NOTHING, HarnessRequest
from hpx_core.results.bundle import dump_json
from hpx_core.results.bundle_schema import shape_problem
from hpx_core.results.profile_schemas import ESTIMATE_FILE, PROFILE_FILE
from hpx_core.run.pass_result import ConsoleSummary, PassResult

if TYPE_CHECKING:
    from hpx_core.insight import InstructionProfile
    from hpx_core.insight.qemu_pass import NamedRange

SECTION = "instruction_profile"


def wants_profile(ctx: RunContext) -> bool:
    profiling = ctx.config.profiling
    return profiling.instruction_profile or profiling.estimate_for is not None


def check_insight(ctx: RunContext) -> None:
    """Refuse, before any fetch, a profile or an estimate this run cannot make."""
    profiling = ctx.config.profiling
    if profiling.calibration is not None and profiling.estimate_for is None:
        raise UsageError("profiling.calibration corrects an estimate, and none is asked for",
                         "add --estimate-for BOARD, or leave the calibration out")
    if not wants_profile(ctx):
        return
    if not ctx.board.emulated:
        raise UsageError(
            f"instruction profiles run on the emulated boards; {ctx.board.name} is silicon",
            "profile on the emulated board with its core and estimate for this one "
            f"(--board qemu-m55 --estimate-for {ctx.board.name})")
    from hpx_core.insight.plugin_build import plugin_library

    plugin_library()  # one ToolError naming what to install: no C compiler, no plugin support
    silicon = estimate_board(ctx)
    if silicon is not None:
        from hpx_core.insight.cycles.estimate import core_model
        from hpx_core.insight.cycles.memory import memory_system

        core_model(ctx.board, silicon)
        memory_system(silicon)
        calibration = ctx.config.profiling.calibration
        if calibration is not None:
            from hpx_core.insight.calibrate import load_calibration

            load_calibration(calibration, silicon.name)


def estimate_board(ctx: RunContext) -> Board | None:
    """The estimate's silicon board in the run's clock mode (``target.clock``): its clock_hz
    is what the estimate's milliseconds are at."""
    name = ctx.config.profiling.estimate_for
    return get_board(name).at_clock(ctx.config.target.clock) if name is not None else None


@attrs.frozen
class InstructionProfilePass:
    """``profiling.instruction_profile`` / ``estimate_for``: see the module's docstring."""

    name: str = "instruction profile"

    def check(self, ctx: RunContext) -> None:
        check_insight(ctx)

    def wanted(self, ctx: RunContext) -> bool:
        return wants_profile(ctx)

    def harness(self, ctx: RunContext, contribution: FirmwareContribution) -> HarnessRequest:
        return NOTHING  # the plugin watches the harness's own markers: nothing to compile in

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassResult[InstructionProfile]:
        from hpx_core.insight import instruction_profile, profile_document

        found = instruction_profile(inputs.built.build.elf, ctx.board,
                                    ctx.config.target.toolchain, buffers=_buffers(inputs))
        if not found.counter_agrees():
            raise RunError("the instruction profile's per-layer counts differ from the "
                           "harness's SysTick counts", "report it: the two must agree")
        files = {PROFILE_FILE: dump_json(profile_document(found))}
        section: dict[str, object] = {"file": PROFILE_FILE, "matches_counts": True,
                                      "seconds": round(found.seconds, 3)}
        silicon = estimate_board(ctx)
        if silicon is None:
            return PassResult(found, SECTION, section, files)
        estimate = _estimate(ctx, found, silicon, inputs)
        files[ESTIMATE_FILE] = dump_json(estimate)
        section |= {"estimate": ESTIMATE_FILE, "estimate_for": silicon.name,
                    "clock": silicon.clock, "clock_hz": silicon.clock_hz}
        return PassResult(found, SECTION, section, files, shown(estimate))


def shown(estimate: Mapping[str, Any]) -> ConsoleSummary:
    """Each layer's estimated cycles as a column, the whole inference's as a line."""
    whole = estimate["whole"]
    line = (f"estimated on {estimate['board']}: {whole['estimated_cycles']:,.0f} cycles, "
            f"{whole['estimated_ms']:.3f} ms at {estimate['clock_hz']:,} Hz (an estimate from "
            "the instruction profile, not a measurement)")
    return ConsoleSummary((f"est. cycles {estimate['board']}",),
                          {s["index"]: (f"{s['estimated_cycles']:,.0f}",)
                           for s in estimate["layers"]}, lines=(line,))


def _buffers(inputs: PassInputs) -> list[NamedRange]:
    """The planned buffers of the emulated build, as the profile's named ranges."""
    from hpx_core.insight.qemu_pass import NamedRange

    return [NamedRange(p.buffer.symbol, p.address, p.address + p.size)
            for p in inputs.built.placement.buffers if p.size > 0]


def _estimate(ctx: RunContext, found: InstructionProfile, silicon: Board,
              inputs: PassInputs) -> dict[str, Any]:
    from hpx_core.insight.cycles.estimate import calibrated, estimate, estimate_document

    result = estimate(found, silicon, placed=_silicon_places(ctx, inputs.model, silicon))
    calibration = ctx.config.profiling.calibration
    if calibration is not None:
        from hpx_core.insight.calibrate import load_calibration

        result = calibrated(result, load_calibration(calibration, silicon.name),
                            calibration.name)
    document = estimate_document(result)
    problem = shape_problem(ESTIMATE_FILE, document)
    if problem:  # bounded costs cannot get here; a bug of the model must not reach a bundle
        raise RunError(f"the cycle estimate is out of bounds: {problem}",
                       "report it, with the calibration file if one was given")
    return document


def _silicon_places(ctx: RunContext, model: ModelInfo, silicon: Board
                    ) -> Mapping[str, str] | None:
    """Each planned buffer's region on ``silicon`` by that board's own memory plan (None: the
    engine plans no buffers, so regions map by their use words)."""
    section = ctx.config.model
    request = MemoryRequest(ctx.engine, silicon, model, arena_size=section.arena_size,
                            location=section.location, arena_location=section.arena_location)
    needs = ctx.hooks.plan_memory(ctx.engine.name, request)
    if needs is None:
        return None
    layout = plan_layout(silicon, needs)
    return {p.need.symbol: p.region for p in layout.placements if p.need.symbol is not None}
