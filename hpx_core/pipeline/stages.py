"""The stages of one profile run, in order; each reads what earlier ones made.

The engine-specific stages build a request record, call the selected engine's hook and keep its
answer. A silicon board without a probe stops after the build, saying so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import all_boards, get_board
from hpx_core.build import HarnessSettings, build_info, build_project, get_toolchain, render_project
from hpx_core.build.elfinfo import symbol_inventory
from hpx_core.build.placement import check_elf, check_plan
from hpx_core.config import walk_values
from hpx_core.contract import (
    ErrorRequest,
    Explanation,
    FirmwareRequest,
    ModelRequest,
    ResultsRequest,
    SourceSet,
    SourcesRequest,
    SymbolsRequest,
)
from hpx_core.errors import (
    BuildError,
    HpxError,
    ModelError,
    PluginError,
    RunError,
    ToolError,
    UsageError,
)
from hpx_core.models import CORE_FORMATS, ModelInfo, detect_format, load_model
from hpx_core.pipeline.state import RunState, StageUnavailableError, need
from hpx_core.plugins import Registry
from hpx_core.probe.passes import plan_events, run_extra_passes
from hpx_core.probe.probes import NoProbeError
from hpx_core.results import Measurement
from hpx_core.run.choose import runner_for
from hpx_core.run.record import run_and_record
from hpx_core.sources import check_may_run, materialize
from hpx_core.wire import Capture

RUN_TIMEOUT = 600.0


def config_stage(state: RunState) -> None:
    """The config was validated before the pipeline started; resolve the board it names, and
    refuse a toolchain that is not installed before anything is fetched or built."""
    try:
        state.board = get_board(state.config.target.board)
    except HpxError as error:
        raise state.validated.document.error("target.board", error.message, error.hint) from None
    get_toolchain(state.config.target.toolchain)


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
        hook = (registry.engine_hook(engine, "hpx_read_model") if engine
                else registry.manager.hook.hpx_read_model)
        answer: ModelInfo | None = hook(
            request=ModelRequest(path, data, hashlib.sha256(data).hexdigest()))
        if answer is None:
            raise unknown from None
        return answer
    return load_model(path)


def model_stage(state: RunState) -> None:
    """Read the model and check that the selected engine reads its format."""
    path = state.config.model.path
    if path is None:
        raise UsageError("no model given", "pass MODEL to hpx profile, or set model.path")
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


def sources_stage(state: RunState) -> None:
    """The counter plan first (an emulated board asked for PMU events is refused before any
    fetch; a PMU board reads its event names from the SDK), then the engine's sources."""
    board = need(state.board, "board")
    offline = state.config.build.offline
    state.event_plan = plan_events(board, state.config.profiling.counters, offline=offline)
    request = SourcesRequest(state.engine, board, state.registry.catalog, offline)
    answer: SourceSet | None = _hook(state, "hpx_materialize_sources")(request=request)
    if answer is None:  # the engine declared its pins and needs nothing more
        answer = materialize(request.catalog, request.engine.name, request.engine.backend,
                             offline=offline)
    state.sources = answer


def firmware_stage(state: RunState) -> None:
    board, model = need(state.board, "board"), need(state.model, "model")
    work = work_dir(state)
    request = FirmwareRequest(
        engine=state.engine, board=board, model=model, sources=need(state.sources, "sources"),
        toolchain=state.config.target.toolchain, jobs=state.config.build.jobs or 2,
        scratch=work / "scratch", arena_size=state.config.model.arena_size,
    )
    request.scratch.mkdir(parents=True, exist_ok=True)
    contribution = _required(state, "hpx_generate_firmware", request)
    profiling = state.config.profiling
    settings = HarnessSettings(
        engine=state.engine.name, iterations=profiling.iterations, warmup=profiling.warmup,
        pmu_events=need(state.event_plan, "counter plan").counters.passes[0],
    )
    state.contribution = contribution
    check_plan(board, contribution.buffers)  # before compiling
    state.project = render_project(work, board, contribution, settings)


def build_stage(state: RunState) -> None:
    board = need(state.board, "board")
    state.build = build_project(
        need(state.project, "project"),
        get_toolchain(state.config.target.toolchain),
        config=config_json(state),
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
    answers = state.registry.manager.hook.hpx_verify_symbols(request=request)
    state.findings = tuple(f for answer in answers for f in answer)
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
    runner = runner_for(board, timeout=RUN_TIMEOUT, probe=state.config.target.probe)
    others: list[Measurement] = []
    try:
        runner.check()  # no probe: stop before building the other passes' images
        if len(plan.counters.passes) > 1:
            others = run_extra_passes(need(state.project, "project"), plan,
                                      toolchain=state.config.target.toolchain, runner=runner)
        state.record = run_and_record(
            runner, built.elf, state.config.output.dir, engine=state.engine.name,
            toolchain=f"{built.toolchain} {built.toolchain_version}",
            model_sha256=need(state.model, "model").sha256, config=config_json(state),
            build=build_info(built), provenance_extra=_provenance(state),
            extra=_run_extra(state), extra_from=lambda capture: _extras(state, capture),
            explain=lambda capture, code, stage: _explain(state, capture, code, stage),
            event_names=plan.names, merge_with=others,
            planned_events=[e for p in plan.counters.passes for e in p],
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
    ("sources", sources_stage),
    ("firmware generation", firmware_stage),
    ("build", build_stage),
    ("kernel verification", verify_stage),
    ("run, capture and results", run_stage),
)


def _hook(state: RunState, name: str) -> Any:
    return state.registry.engine_hook(state.engine.name, name)


def _required(state: RunState, hook: str, request: object) -> Any:
    answer = _hook(state, hook)(request=request)
    if answer is None:
        entry = state.validated.engine
        raise PluginError(
            f"engine {entry.descriptor.name!r} does not implement {hook}",
            f"this engine cannot run the pipeline yet; ask the maintainers of "
            f"{entry.plugin.distribution}",
        )
    return answer


def _extras(state: RunState, capture: Capture) -> Mapping[str, Any]:
    request = ResultsRequest(
        engine=state.engine, board=need(state.board, "board"), model=need(state.model, "model"),
        sources=need(state.sources, "sources"), capture=capture,
        facts=need(state.contribution, "firmware").facts,
    )
    answer = _hook(state, "hpx_result_extras")(request=request)
    return dict(answer.values) if answer is not None else {}


def _explain(state: RunState, capture: Capture, code: int, stage: str) -> HpxError | None:
    request = ErrorRequest(state.engine, need(state.model, "model"), code, stage, capture)
    answer: Explanation | None = _hook(state, "hpx_explain_error")(request=request)
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


def work_dir(state: RunState) -> Path:
    """Where the generated project lives: one folder per model, engine, backend and board, and
    per toolchain other than the default (so GCC and LLVM builds of one model sit side by
    side)."""
    model = need(state.model, "model")
    engine = state.config.engine
    board = need(state.board, "board").name
    name = f"{Path(model.path).stem}-{engine.type}-{engine.backend or 'default'}-{board}"
    if state.config.target.toolchain != "arm-none-eabi-gcc":
        name += f"-{state.config.target.toolchain}"
    return state.config.output.dir.parent / "hpx-work" / name


def config_json(state: RunState) -> dict[str, Any]:
    """The resolved config with each value's origin, JSON-ready, for the bundle."""
    values = walk_values(state.config, state.validated.document)
    return {v.path: {"value": _plain(v.value), "from": v.origin} for v in values} | {
        "engine.config": _plain(state.validated.engine_values()) or None
    }


def _provenance(state: RunState) -> dict[str, Any]:
    sources = state.sources
    if sources is None:
        return {}
    owners = state.registry.catalog.declared_by
    return {
        "sources": sources.provenance,
        "repositories": [
            {"name": r.name, "url": r.url, "commit": r.commit, "license": r.license,
             "declared_by": owners.get(r.name, "unknown")}
            for r in sources.repos
        ],
    }


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value
