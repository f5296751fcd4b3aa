"""The run stage: the firmware on its board (every PMU pass), judged, and the bundle written.

The recorder (:class:`hpx_core.run.record.Recorder`) leaves a bundle whatever happens; this
module puts in the engine's words (an error code its glue reported, its facts and files, its
host outputs for the core's comparison) and what the uncounted passes found. A silicon board
without a probe stops after the build, saying where the firmware is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from hpx_core.contract import ErrorRequest, ResultsRequest, SourceSet, SymbolFinding
from hpx_core.errors import HpxError, RunError, ToolError
from hpx_core.firmware import build_info
from hpx_core.models import ModelInfo
from hpx_core.pipeline.arena_fit import ArenaTooSmallError
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.engine_code import engine_code
from hpx_core.pipeline.facts import config_json, source_provenance
from hpx_core.pipeline.firmware import RUN_LOG
from hpx_core.pipeline.passes import run_passes
from hpx_core.pipeline.power_pass import instrument
from hpx_core.pipeline.products import Built, PassInputs, StageUnavailableError
from hpx_core.probe.event_passes import EventPlan, run_extra_passes
from hpx_core.probe.probes import NoProbeError
from hpx_core.results import BundleInputs, Measurement
from hpx_core.results.bundle import dump_json
from hpx_core.results.outputs import (
    NO_REFERENCE_OUTPUTS,
    NO_RESULT_EXTRAS,
    OutputsUnchecked,
    check_outputs,
)
from hpx_core.run.record import (
    FirmwareReportedError,
    Recorder,
    ResultParts,
    RunRecord,
    judge,
    measured,
    provenance,
)
from hpx_core.run.runner import Execution, held
from hpx_core.runners import runner_for
from hpx_core.wire import Capture

if TYPE_CHECKING:
    from hpx_core.probe.power_run import PowerRun

RUN_TIMEOUT = 600.0


def run_firmware(ctx: RunContext, model: ModelInfo, sources: SourceSet, built: Built,
                 events: EventPlan, findings: tuple[SymbolFinding, ...]) -> RunRecord:
    """Run every PMU pass through the board's runner and record the run in a bundle."""
    with instrument(ctx) as power:
        return _run_firmware(ctx, model, sources, built, events, findings, power)


def _run_firmware(ctx: RunContext, model: ModelInfo, sources: SourceSet, built: Built,
                  events: EventPlan, findings: tuple[SymbolFinding, ...],
                  power: PowerRun | None) -> RunRecord:
    target = ctx.config.target
    runner = runner_for(ctx.board, timeout=RUN_TIMEOUT, probe=target.probe, place=ctx.place,
                        farm=ctx.config.farm, notify=ctx.notify, power=power)
    try:
        runner.check()  # no probe: stop before building the other passes' images
        with held(runner):  # a farm's place: held across the passes, released however it ends
            others: list[Measurement] = []
            if len(events.counters.passes) > 1:
                others = run_extra_passes(built.firmware.project, events,
                                          toolchain=target.toolchain, runner=runner)
            recorder = _recorder(ctx, model, sources, built, events, findings)
            run, recorder = recorder.execute(runner, built.build.elf)
            return _record(ctx, model, sources, built, events, (run, runner.timeout), recorder,
                           others)
    except (NoProbeError, ToolError) as error:
        if ctx.board.emulated:
            raise
        elf, sizes = built.build.elf, built.build.sizes
        raise StageUnavailableError(
            f"stopped after the build: {error.message}; the firmware for {ctx.board.name} is "
            f"{elf} ({sizes.text} B text, {sizes.bss} B bss)",
            "attach the EVB's debug probe and run again (`hpx probes` lists what hpx sees)",
        ) from None


def _record(ctx: RunContext, model: ModelInfo, sources: SourceSet, built: Built,
            events: EventPlan, ran: tuple[Execution, float], recorder: Recorder,
            others: list[Measurement]) -> RunRecord:
    """Judge the run and write its bundle (a failed one, with the error, when it fails)."""
    run, timeout = ran
    try:
        capture = judge(ctx.board, built.build.elf, run, timeout)
        measurement = measured(capture, run, ctx.board, events.names, others,
                               [e for p in events.counters.passes for e in p])
        parts = _parts(ctx, model, sources, built, capture, run)
    except FirmwareReportedError as reported:
        explained = _explained(ctx, model, reported)
        try:
            recorder.fail(explained)
        except RunError as failed:  # the failed bundle is written; a short arena is measured
            if isinstance(explained, ArenaTooSmallError):
                raise ArenaTooSmallError(failed.message, failed.hint, explained.arena) from None
            raise
    except HpxError as error:
        recorder.fail(error)
    return recorder.complete(run, capture, measurement, parts)


def _parts(ctx: RunContext, model: ModelInfo, sources: SourceSet, built: Built,
           capture: Capture, run: Execution) -> ResultParts:
    """The engine's facts and files, its outputs against its host reference, the passes'."""
    contribution = built.firmware.contribution
    request = ResultsRequest(engine=ctx.engine, board=ctx.board, model=model, sources=sources,
                             capture=capture, facts=contribution.facts)
    answer = ctx.hooks.result_extras(ctx.engine.name, request)
    passes = run_passes(ctx, PassInputs(capture, contribution, answer, built, model, run.power))
    if answer is None:
        return ResultParts(outputs=OutputsUnchecked(NO_RESULT_EXTRAS), passes=passes)
    outputs = check_outputs(capture.outputs(), answer.reference_outputs,
                            ctx.config.profiling.output_tolerance)
    return ResultParts(dict(answer.values), dict(answer.files),
                       outputs or OutputsUnchecked(NO_REFERENCE_OUTPUTS), passes)


def _explained(ctx: RunContext, model: ModelInfo, reported: FirmwareReportedError
               ) -> HpxError:
    """The engine's words for an error code its glue reported, else the bare code."""
    request = ErrorRequest(ctx.engine, model, reported.code, reported.stage, reported.capture)
    answer = ctx.hooks.explain_error(ctx.engine.name, request)
    if answer is None:
        return reported
    if answer.arena is not None and ctx.config.model.arena_size is not None:
        return ArenaTooSmallError(answer.message, answer.hint, answer.arena)
    return RunError(answer.message, answer.hint)


def _recorder(ctx: RunContext, model: ModelInfo, sources: SourceSet, built: Built,
              events: EventPlan, findings: tuple[SymbolFinding, ...]) -> Recorder:
    build = built.build
    firmware = built.firmware
    copy = {"model_copy": firmware.model_copy.provenance()} if firmware.model_copy else {}
    code = engine_code(ctx.registry.engine(ctx.engine.name).module, firmware.contribution.files)
    return Recorder(ctx.config.output.dir, BundleInputs(
        status="failed", board=ctx.board.name, engine=ctx.engine.name,
        backend=ctx.engine.backend,
        engine_libraries=tuple(lib.label for lib in firmware.contribution.libraries),
        counter_units=ctx.board.counter_units(), model_sha256=model.sha256,
        toolchain=f"{build.toolchain} {build.toolchain_version}",
        config=config_json(ctx.validated), build=build_info(build),
        engine_code=code.sha256, provenance=provenance(None, source_provenance(
            sources, ctx.registry.catalog) | copy | {"engine_code": code.provenance()}),
        extra=_run_extra(built, events, findings) | _clock(ctx), logs=_logs(built),
        files={"placement.json": dump_json(attrs.asdict(built.placement))},
    ))


def _clock(ctx: RunContext) -> dict[str, Any]:
    """A silicon run's clock mode and the core clock its counts are in (``target.clock``)."""
    board = ctx.board
    return {} if board.emulated else {"clock": {"mode": board.clock, "hz": board.clock_hz}}


def _run_extra(built: Built, events: EventPlan,
               findings: tuple[SymbolFinding, ...]) -> dict[str, Any]:
    extra: dict[str, Any] = {
        "kernel_checks": [attrs.asdict(f) for f in findings],
        "libraries": [attrs.asdict(lib) for lib in built.firmware.contribution.libraries],
    }
    if events.counters.passes != ((),) or events.counters.note:
        extra["counters"] = {"passes": [list(p) for p in events.counters.passes],
                             "note": events.counters.note}
    return extra


def _logs(built: Built) -> dict[str, bytes]:
    log = built.firmware.work_folder / RUN_LOG
    return {RUN_LOG: log.read_bytes()} if log.is_file() and log.stat().st_size else {}
