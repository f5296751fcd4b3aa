"""The instruction-profile pass and the cycle estimate it feeds, as one uncounted pass.

After the timed run is judged, the same ELF runs once more under QEMU with hpx's TCG plugin
(:mod:`hpx_insight`): each layer's instructions by class, memory traffic per region (and
per planned buffer) and hottest code, checked equal to the harness's SysTick counts. With
``profiling.estimate_for`` the profile becomes estimated cycles on that Apollo board, its
buffers mapped to the regions that board's own memory plan gives them. What the pass needs is
refused before anything is fetched (:func:`check_insight`, the pass's check): a silicon board,
a host without a C compiler, a QEMU without plugins, a board the cycle model does not cover.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from hpx_core.sdk import (
    FirmwareContribution,
    MemoryLayout,
    MemoryNeeds,
    MemoryRequest,
    RunError,
)
from hpx_core.sdk.firmware import Board
from hpx_core.sdk.models import ModelInfo
from hpx_core.sdk.passes import (
    NOTHING,
    ConsoleSummary,
    Documents,
    HarnessRequest,
    PassFlag,
    PassInputs,
    PassResult,
    RunContext,
    UsageError,
    dump_json,
    every_layout,
    get_board,
    plan_layout,
    shape_problem,
)
from hpx_insight.options import FLAGS, InsightOptions
from hpx_insight.schemas import ESTIMATE_FILE, ESTIMATE_SCHEMA, PROFILE_FILE, PROFILE_SCHEMA

if TYPE_CHECKING:
    from hpx_insight.caches import CacheSetup
    from hpx_insight.cycles.memory import LineCosts
    from hpx_insight.profile import InstructionProfile
    from hpx_insight.qemu_pass import NamedRange

SECTION = "instruction_profile"


def asked(ctx: RunContext) -> InsightOptions:
    return ctx.validated.options(InsightOptions)


def check_insight(ctx: RunContext) -> None:
    """Refuse, before any fetch, a profile or an estimate this run cannot make."""
    given = asked(ctx)
    for key, path in (("calibration", given.calibration),
                      ("memory_calibration", given.memory_calibration)):
        if path is not None and given.estimate_for is None:
            raise UsageError(f"profiling.{key} corrects an estimate, and none is asked for",
                             "add --estimate-for BOARD, or leave the calibration out")
    if not given.wanted:
        return
    if not ctx.board.emulated:
        raise UsageError(
            f"instruction profiles run on the emulated boards; {ctx.board.name} is silicon",
            "profile on the emulated board with its core and estimate for this one "
            f"(--board qemu-m55 --estimate-for {ctx.board.name})")
    from hpx_insight.plugin_build import plugin_library

    plugin_library()  # one ToolError naming what to install: no C compiler, no plugin support
    silicon = estimate_board(ctx)
    if silicon is not None:
        from hpx_insight.cycles.estimate import core_model
        from hpx_insight.cycles.memory import memory_system

        core_model(ctx.board, silicon)
        memory_system(silicon)
        if given.calibration is not None:
            from hpx_insight.calibrate import load_calibration

            load_calibration(given.calibration, silicon.name)
        measured_lines(ctx, silicon)


def measured_lines(ctx: RunContext, silicon: Board) -> dict[str, LineCosts]:
    """The line costs the run's memory calibration measured on ``silicon`` (none given:
    empty, and the model's own costs stand)."""
    path = asked(ctx).memory_calibration
    if path is None:
        return {}
    from hpx_insight.memory_calibration import load_memory_calibration

    return load_memory_calibration(path, silicon)


def estimate_board(ctx: RunContext) -> Board | None:
    """The estimate's silicon board in the run's clock mode (``target.clock``): its clock_hz
    is what the estimate's milliseconds are at."""
    name = asked(ctx).estimate_for
    return get_board(name).at_clock(ctx.config.target.clock) if name is not None else None


@attrs.frozen
class InstructionProfilePass:
    """``profiling.instruction_profile`` / ``estimate_for``: see the module's docstring. One
    object, every face the core asks of a pass distribution: the run's steps, its keys and
    flags, its bundle files and their views."""

    name: str = "instruction profile"
    options: type[InsightOptions] = InsightOptions
    flags: tuple[PassFlag, ...] = FLAGS
    schemas: Mapping[str, Mapping[str, Any]] = attrs.field(
        factory=lambda: {PROFILE_FILE: PROFILE_SCHEMA, ESTIMATE_FILE: ESTIMATE_SCHEMA})

    def check(self, ctx: RunContext) -> None:
        check_insight(ctx)

    def wanted(self, ctx: RunContext) -> bool:
        return asked(ctx).wanted

    def harness(self, ctx: RunContext, contribution: FirmwareContribution) -> HarnessRequest:
        return NOTHING  # the plugin watches the harness's own markers: nothing to compile in

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassResult[InstructionProfile]:
        from hpx_insight.document import profile_document
        from hpx_insight.profile import instruction_profile

        silicon = estimate_board(ctx)
        needs = _silicon_needs(ctx, inputs.model, silicon) if silicon is not None else None
        placed = _places(silicon, needs) if silicon is not None else None
        buffers = _buffers(inputs)
        caches = _cache_setup(ctx.board, silicon, buffers, placed) if silicon else None
        found = instruction_profile(inputs.built.build.elf, ctx.board,
                                    ctx.config.target.toolchain, buffers=buffers, caches=caches)
        if not found.counter_agrees():
            raise RunError("the instruction profile's per-layer counts differ from the "
                           "harness's SysTick counts", "report it: the two must agree")
        profile = profile_document(found)
        files = {PROFILE_FILE: dump_json(profile)}
        section: dict[str, object] = {"file": PROFILE_FILE, "matches_counts": True,
                                      "seconds": round(found.seconds, 3)}
        if silicon is None:
            return PassResult(found, SECTION, section, files)
        estimate = _estimate(ctx, found, silicon, needs)
        estimate = _with_energy(ctx, silicon, estimate, profile)
        files[ESTIMATE_FILE] = dump_json(estimate)
        section |= {"estimate": ESTIMATE_FILE, "estimate_for": silicon.name,
                    "clock": silicon.clock, "clock_hz": silicon.clock_hz}
        return PassResult(found, SECTION, section, files, shown(estimate))

    def html(self, documents: Documents) -> str | None:
        from hpx_insight.views import estimate_html, html_section

        sections = [html_section(documents[PROFILE_FILE]) if PROFILE_FILE in documents else "",
                    estimate_html(documents[ESTIMATE_FILE]) if ESTIMATE_FILE in documents
                    else ""]
        return "\n".join(s for s in sections if s) or None

    def trace_events(self, documents: Documents, events: Sequence[Mapping[str, Any]]
                     ) -> list[dict[str, Any]]:
        from hpx_insight.views import function_slices

        profile = documents.get(PROFILE_FILE)
        return function_slices(profile, events) if profile is not None else []

    def compare(self, base: Documents, candidate: Documents, top: int) -> tuple[Any, ...]:
        from hpx_insight.compare_tables import class_table, estimate_table

        return tuple(
            table(base[name], candidate[name]) for name, table in (
                (PROFILE_FILE, lambda b, c: class_table(b, c, top)),
                (ESTIMATE_FILE, estimate_table))
            if name in base and name in candidate)


def shown(estimate: Mapping[str, Any]) -> ConsoleSummary:
    """Each layer's estimated cycles as a column; the whole inference's, the best placement and
    the energy as lines."""
    whole = estimate["whole"]
    lines = [f"estimated on {estimate['board']}: {whole['estimated_cycles']:,.0f} cycles, "
             f"{whole['estimated_ms']:.3f} ms at {estimate['clock_hz']:,} Hz (an estimate from "
             "the instruction profile, not a measurement)"]
    if "best_placement" in estimate:
        lines.append(estimate["best_placement"])
    energy = estimate.get("energy") or {}
    if "layers" not in energy:
        lines += [energy["note"]] if "note" in energy else []
        return ConsoleSummary((f"est. cycles {estimate['board']}",),
                              {s["index"]: (f"{s['estimated_cycles']:,.0f}",)
                               for s in estimate["layers"]}, lines=tuple(lines))
    lines.append(f"estimated energy on {estimate['board']}: {energy['inference_uj']:.3f} µJ "
                 "per inference, by the calibration's energy law (an estimate, not a "
                 "measurement)")
    return ConsoleSummary(
        (f"est. cycles {estimate['board']}", "est. µJ"),
        {s["index"]: (f"{s['estimated_cycles']:,.0f}",
                      f"{energy['layers'].get(str(s['index']), 0.0):.3f}")
         for s in estimate["layers"]}, lines=tuple(lines))


def _buffers(inputs: PassInputs) -> list[NamedRange]:
    """The planned buffers of the emulated build, as the profile's named ranges."""
    from hpx_insight.qemu_pass import NamedRange

    return [NamedRange(p.buffer.symbol, p.address, p.address + p.size)
            for p in inputs.built.placement.buffers if p.size > 0]


def _cache_setup(board: Board, silicon: Board, buffers: Sequence[NamedRange],
                 placed: Mapping[str, str] | None) -> CacheSetup | None:
    from hpx_insight.cycles.memory import cache_setup
    from hpx_insight.qemu_pass import board_ranges

    return cache_setup(board, silicon, [r.name for r in board_ranges(board, buffers)], placed)


def _estimate(ctx: RunContext, found: InstructionProfile, silicon: Board,
              needs: MemoryNeeds | None) -> dict[str, Any]:
    from hpx_insight.cycles.estimate import calibrated, core_estimate, estimate_document, reprice
    from hpx_insight.whatif import best_line, placements_json, price_plans

    base = core_estimate(found, silicon, measured_lines(ctx, silicon))
    placed = _places(silicon, needs)
    result = reprice(base, found, placed)
    plans = [_placed(layout) for layout in every_layout(silicon, needs)] if needs else []
    placements = price_plans(base, found, plans, placed or {}) if plans else []
    calibration = asked(ctx).calibration
    if calibration is not None:
        from hpx_insight.calibrate import load_calibration

        result = calibrated(result, load_calibration(calibration, silicon.name),
                            calibration.name)
    document = estimate_document(result)
    if placements:
        document |= {"placements": placements_json(placements),
                     "best_placement": best_line(placements)}
    problem = shape_problem(ESTIMATE_FILE, document)
    if problem:  # bounded costs cannot get here; a bug of the model must not reach a bundle
        raise RunError(f"the cycle estimate is out of bounds: {problem}",
                       "report it, with the calibration file if one was given")
    return document


def _with_energy(ctx: RunContext, silicon: Board, estimate: dict[str, Any],
                 profile: Mapping[str, Any]) -> dict[str, Any]:
    """The estimate with each layer's µJ under the calibration's energy law; without one, the
    estimate says why it has no energy (no constant is taken from elsewhere)."""
    from hpx_insight.calibrate import load_energy_law
    from hpx_insight.energy_law import estimated_energy

    calibration = asked(ctx).calibration
    law = load_energy_law(calibration, silicon.name) if calibration is not None else None
    if law is None:
        why = ("no calibration" if calibration is None else
               f"{calibration.name} was fitted on bundles without energy")
        return estimate | {"energy": {"note": f"no energy estimate: {why} (hpx calibrate on "
                                              "bundles measured with --power)"}}
    return estimate | {"energy": estimated_energy(law, estimate, profile)}


def _silicon_needs(ctx: RunContext, model: ModelInfo, silicon: Board) -> MemoryNeeds | None:
    """The engine's memory plan for ``silicon``, asked again (None: it plans no buffers)."""
    section = ctx.config.model
    request = MemoryRequest(ctx.engine, silicon, model, arena_size=section.arena_size,
                            location=section.location, arena_location=section.arena_location)
    return ctx.hooks.plan_memory(ctx.engine.name, request)


def _placed(layout: MemoryLayout) -> dict[str, str]:
    return {p.need.symbol: p.region for p in layout.placements if p.need.symbol is not None}


def _places(silicon: Board, needs: MemoryNeeds | None) -> dict[str, str] | None:
    """Each planned buffer's region on ``silicon`` by that board's own memory plan (None: the
    engine plans no buffers, so regions map by their use words)."""
    return _placed(plan_layout(silicon, needs)) if needs is not None else None
