"""The stages of one profile run, in order; each reads what earlier ones made.

The engine-specific stages build a request record, call the selected engine's hook and keep its
answer. A silicon board without a probe stops after the build, saying so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import all_boards, get_board
from hpx_core.build import HarnessSettings, build_info, build_project, get_toolchain, render_project
from hpx_core.build.builder import RegionOverflowError
from hpx_core.build.elfinfo import symbol_inventory
from hpx_core.build.placement import check_elf, check_plan
from hpx_core.contract import (
    ErrorRequest,
    FirmwareRequest,
    ModelRequest,
    ResultsRequest,
    SourcesRequest,
    SymbolsRequest,
)
from hpx_core.errors import (
    BuildError,
    ConfigError,
    HpxError,
    ModelError,
    RunError,
    SourceError,
    ToolError,
    UsageError,
)
from hpx_core.hooks import EngineHooks
from hpx_core.models import CORE_FORMATS, ModelInfo, detect_format, load_model
from hpx_core.models.analyses import keep_analysis
from hpx_core.pipeline.facts import config_json, source_provenance
from hpx_core.pipeline.memory import memory_stage, overflow_sentence, replan_after_overflow
from hpx_core.pipeline.model_copy import model_for_engine
from hpx_core.pipeline.state import RunState, StageUnavailableError, need
from hpx_core.pipeline.workdir import check_buildable, claim_work_folder
from hpx_core.plugins import DISABLE_ENV, Registry
from hpx_core.probe.passes import plan_events, run_extra_passes
from hpx_core.probe.probes import NoProbeError
from hpx_core.results import Measurement
from hpx_core.results.outputs import check_outputs
from hpx_core.run.record import ResultParts, run_and_record
from hpx_core.run.runner import held
from hpx_core.runners import runner_for
from hpx_core.sources import check_may_run, materialize
from hpx_core.wire import Capture

RUN_TIMEOUT = 600.0
RUN_LOG = "run.log"
"""The run's log in the work folder: what engine tools printed; kept in the bundle."""


def config_stage(state: RunState) -> None:
    """The config was validated before the pipeline started; resolve the board it names, and
    refuse a toolchain that is not installed and check a board farm's place before anything
    is fetched or built for it."""
    try:
        state.board = get_board(state.config.target.board)
    except HpxError as error:
        raise state.validated.document.error("target.board", error.message, error.hint) from None
    get_toolchain(state.config.target.toolchain)
    check_buildable(state)
    target = state.config.target
    if target.place is not None:
        runner_for(state.board, place=target.place, farm=state.config.farm).check()


def read_model(path: Path, registry: Registry, engine: str | None = None) -> ModelInfo:
    """A ``.tflite``/``.pte`` read by the core, any other format by the engine that reads it
    (``engine``'s plugin, or the first plugin that answers)."""
    path = Path(path)
    if not path.is_file():
        return load_model(path)  # the core's words for a missing file
    data = path.read_bytes()
    try:
        detect_format(data, path.name)
    except ModelError as unknown:
        request = ModelRequest(path, data, hashlib.sha256(data).hexdigest())
        answer = EngineHooks(registry).read_model(request, engine)
        if answer is None:
            raise unclaimed(unknown, registry) from None
        return answer
    return load_model(path)


def unclaimed(unknown: ModelError, registry: Registry) -> ModelError:
    """The refusal of a file neither the core nor an installed engine reads, naming what each
    installed engine reads (and which engines are disabled)."""
    formats: dict[str, list[str]] = {}
    for name, entry in sorted(registry.engines.items()):
        for kind in entry.descriptor.model_formats:
            formats.setdefault(kind, []).append(name)
    readers = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in formats.items())
    disabled = (f"; disabled by {DISABLE_ENV}: {', '.join(p.name for p in registry.disabled)}"
                if registry.disabled else "")
    message = unknown.message.replace(" model (", " model, nor one an installed engine reads (")
    return ModelError(message, f"installed engines read {readers or 'nothing'}{disabled}; "
                               "check the path, or install the engine for this format")


def model_stage(state: RunState) -> None:
    """Read the model and check that the selected engine reads its format."""
    path = state.config.model.path
    if path is None:
        if state.checking:  # a config meant for `hpx profile MODEL -c FILE`
            state.unchecked.append("the model (model.path is not set; hpx profile takes MODEL)")
            return
        raise UsageError("no model given", "pass MODEL to hpx profile, or set model.path")
    if not Path(path).is_file():
        raise state.validated.document.error(
            "model.path", f"model file not found: {path}",
            "check the path (one written in a config file is relative to that file)",
        )
    engine = state.validated.engine.descriptor
    own_format = any(f not in CORE_FORMATS for f in engine.model_formats)
    state.model = read_model(path, state.registry, engine.name if own_format else None)
    if state.model.format not in engine.model_formats:
        raise state.validated.document.error(
            "model.path",
            f"engine {engine.name!r} reads {', '.join(engine.model_formats)} models, "
            f"but {path.name} is a {state.model.format} model",
            "choose an engine for this model format (hpx plugins lists them)",
        )


def license_stage(state: RunState) -> None:
    """Refuse, before anything is fetched, an engine whose license forbids this board."""
    engine = state.engine
    check_may_run(state.registry.catalog, engine.name, engine.backend, need(state.board, "board"),
                  all_boards().values())


def counter_stage(state: RunState) -> None:
    """Plan the counters: an emulated board asked for PMU events is refused before any fetch;
    a PMU board reads its event names from the pinned SDK (a checking run only from the cache)."""
    board = need(state.board, "board")
    requested = state.config.profiling.counters
    offline = state.config.build.offline or state.checking
    try:
        state.event_plan = plan_events(board, requested, offline=offline)
    except SourceError:
        if not state.checking:
            raise
        if requested and board.silicon is not None:
            state.unchecked.append(
                f"profiling.counters against {board.name}'s PMU event names: they come from "
                f"its SDK, not in the cache (hpx sources fetch --board-family "
                f"{board.silicon.family})")
    except ConfigError as error:
        raise state.validated.document.error("profiling.counters", error.message,
                                             error.hint) from None


def sources_stage(state: RunState) -> None:
    """The engine's sources: its own materialization, or its declared pins from the cache."""
    board = need(state.board, "board")
    offline = state.config.build.offline
    request = SourcesRequest(state.engine, board, state.registry.catalog, offline)
    answer = EngineHooks(state.registry).materialize_sources(state.engine.name, request)
    if answer is None:  # the engine declared its pins and needs nothing more
        answer = materialize(request.catalog, request.engine.name, request.engine.backend,
                             offline=offline)
    state.sources = answer


def firmware_stage(state: RunState) -> None:
    """The engine's glue for the model (a corrected copy when it lacks a field the engine
    needs); the run's log starts empty here. A second pass (a plan made again after the
    linker measured the code) keeps the folder the first one claimed."""
    board, model = need(state.board, "board"), need(state.model, "model")
    keep_analysis(model)  # past every check: the next run reads the kept analysis
    work = state.work_folder or claim_work_folder(state)
    state.work_folder = work
    needed = state.validated.engine.descriptor.model_fields
    engine_model, state.model_copy = model_for_engine(model, needed, work / "model")
    request = FirmwareRequest(
        engine=state.engine, board=board, model=engine_model,
        sources=need(state.sources, "sources"), toolchain=state.config.target.toolchain,
        jobs=state.config.build.jobs or 2, scratch=work / "scratch", log=work / RUN_LOG,
        arena_size=state.config.model.arena_size,
        check_layers=state.config.profiling.check_layers, layout=state.layout,
    )
    request.scratch.mkdir(parents=True, exist_ok=True)
    request.log.unlink(missing_ok=True)
    contribution = EngineHooks(state.registry).generate_firmware(state.engine.name, request)
    profiling = state.config.profiling
    settings = HarnessSettings(
        engine=state.engine.name, iterations=profiling.iterations, warmup=profiling.warmup,
        pmu_events=need(state.event_plan, "counter plan").counters.passes[0],
        # the harness's check pass needs the engine's hpx_engine_check() and host reference
        check_layers=profiling.check_layers if contribution.layer_reference else "off",
    )
    state.contribution = contribution
    check_plan(board, contribution.buffers)  # before compiling
    state.project = render_project(work, board, contribution, settings)


def build_stage(state: RunState) -> None:
    """Build the firmware; a region the linker finds full under a plan hpx chose is planned
    again with the code's real size and built once more."""
    try:
        _build(state)
    except RegionOverflowError as overflow:
        replan_after_overflow(state, overflow)  # raises unless the plan changed
        firmware_stage(state)
        try:
            _build(state)
        except RegionOverflowError as again:  # a third plan is not tried
            raise overflow_sentence(state, again) from None


def _build(state: RunState) -> None:
    board = need(state.board, "board")
    state.build = build_project(
        need(state.project, "project"),
        get_toolchain(state.config.target.toolchain),
        config=config_json(state.validated),
        model_sha256=need(state.model, "model").sha256,
        sources=state.sources,
        jobs=state.config.build.jobs or 2,
    )
    state.placement = check_elf(  # a linker that broke the plan stops the run here
        board, state.build.elf, need(state.contribution, "firmware").buffers
    )


def verify_stage(state: RunState) -> None:
    """Every plugin may inspect the linked symbols; a fatal failed finding stops the run."""
    built = need(state.build, "build")
    engine = state.engine
    request = SymbolsRequest(
        engine=engine.name, backend=engine.backend, elf=built.elf,
        symbols=frozenset(symbol_inventory(built.elf).names()), model=state.model,
        facts=need(state.contribution, "firmware").facts,
    )
    state.findings = tuple(EngineHooks(state.registry).verify_symbols(request))
    for finding in state.findings:
        if finding.fatal and not finding.passed:
            raise BuildError(
                f"kernel check {finding.check!r} failed: {finding.detail}",
                f"the firmware at {built.elf} did not link what "
                f"{engine.name}/{engine.backend} needs",
            )


def run_stage(state: RunState) -> None:
    """Run through the board's runner, every PMU pass, and write the bundle."""
    board, built = need(state.board, "board"), need(state.build, "build")
    plan = need(state.event_plan, "counter plan")
    target = state.config.target
    runner = runner_for(board, timeout=RUN_TIMEOUT, probe=target.probe, place=state.place,
                        farm=state.config.farm, notify=state.notify)
    others: list[Measurement] = []
    try:
        runner.check()  # no probe: stop before building the other passes' images
        with held(runner):  # a farm's place: held across the passes, released however it ends
            if len(plan.counters.passes) > 1:
                others = run_extra_passes(need(state.project, "project"), plan,
                                          toolchain=target.toolchain, runner=runner)
            state.record = run_and_record(
                runner, built.elf, state.config.output.dir, engine=state.engine.name,
                toolchain=f"{built.toolchain} {built.toolchain_version}",
                model_sha256=need(state.model, "model").sha256,
                config=config_json(state.validated), build=build_info(built),
                provenance_extra=_provenance(state),
                extra=_run_extra(state), extra_from=lambda capture: _extras(state, capture),
                explain=lambda capture, code, stage: _explain(state, capture, code, stage),
                event_names=plan.names, merge_with=others,
                planned_events=[e for p in plan.counters.passes for e in p],
                logs=_logs(state),
            )
    except (NoProbeError, ToolError) as error:
        if board.emulated:
            raise
        raise StageUnavailableError(
            f"stopped after the build: {error.message}; the firmware for {board.name} is "
            f"{built.elf} ({built.sizes.text} B text, {built.sizes.bss} B bss)",
            "attach the EVB's debug probe and run again (`hpx probes` lists what hpx sees)",
        ) from None


Stage = Callable[[RunState], None]
STAGES: tuple[tuple[str, Stage], ...] = (
    ("config", config_stage),
    ("model analysis", model_stage),
    ("license check", license_stage),
    ("counter plan", counter_stage),
    ("memory plan", memory_stage),
    ("sources", sources_stage),
    ("firmware generation", firmware_stage),
    ("build", build_stage),
    ("kernel verification", verify_stage),
    ("run, capture and results", run_stage),
)


def _extras(state: RunState, capture: Capture) -> ResultParts:
    """The engine's facts and files, and the layer check when the run made one."""
    contribution = need(state.contribution, "firmware")
    request = ResultsRequest(
        engine=state.engine, board=need(state.board, "board"), model=need(state.model, "model"),
        sources=need(state.sources, "sources"), capture=capture, facts=contribution.facts,
    )
    answer = EngineHooks(state.registry).result_extras(state.engine.name, request)
    mode = state.config.profiling.check_layers
    note = answer.layer_check_note if answer is not None else None
    layer_check = None
    if mode != "off":
        from hpx_core.results.layer_check import check_layers  # NumPy: only for a check

        layer_check = check_layers(capture, contribution.layer_reference, mode,
                                   state.engine.name, note)
    if answer is None:
        return ResultParts(layer_check=layer_check)
    outputs = check_outputs(capture.outputs(), answer.reference_outputs,
                            state.config.profiling.output_tolerance)
    return ResultParts(dict(answer.values), dict(answer.files), layer_check, outputs)


def _explain(state: RunState, capture: Capture, code: int, stage: str) -> HpxError | None:
    request = ErrorRequest(state.engine, need(state.model, "model"), code, stage, capture)
    answer = EngineHooks(state.registry).explain_error(state.engine.name, request)
    return RunError(answer.message, answer.hint) if answer is not None else None


def _run_extra(state: RunState) -> dict[str, Any]:
    contribution = need(state.contribution, "firmware")
    extra: dict[str, Any] = {
        "kernel_checks": [attrs.asdict(f) for f in state.findings],
        "libraries": [attrs.asdict(lib) for lib in contribution.libraries],
    }
    plan = state.event_plan
    if plan is not None and (plan.counters.passes != ((),) or plan.counters.note):
        extra["counters"] = {"passes": [list(p) for p in plan.counters.passes],
                             "note": plan.counters.note}
    return extra


def _provenance(state: RunState) -> dict[str, Any]:
    """Where the sources came from, and the corrected model copy the engine was given."""
    copy = {"model_copy": state.model_copy.provenance()} if state.model_copy else {}
    return source_provenance(state.sources, state.registry.catalog) | copy


def _logs(state: RunState) -> dict[str, bytes]:
    if state.work_folder is None:
        return {}
    log = state.work_folder / RUN_LOG
    return {RUN_LOG: log.read_bytes()} if log.is_file() and log.stat().st_size else {}
