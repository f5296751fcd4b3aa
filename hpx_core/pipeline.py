"""One profile run: the stages of the design, in order, each reading what earlier ones made.

Every stage is a small function over :class:`RunState`; the engine-specific ones go through
the selected engine's hooks. A board without a runner available here (a silicon board with no
probe attached) stops after the build, saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs
import structlog

from hpx_core.boards import Board, get_board
from hpx_core.build import (
    BuildResult,
    HarnessSettings,
    Project,
    build_info,
    build_project,
    get_toolchain,
    render_project,
    symbol_inventory,
)
from hpx_core.config import ProfileConfig, walk_values
from hpx_core.engine import FirmwareContribution, SourceSet, SymbolFinding
from hpx_core.errors import BuildError, HpxError, PluginError, UsageError
from hpx_core.models import ModelInfo, load_model
from hpx_core.placement import PlacementReport, check_elf, check_plan
from hpx_core.plugins import Registry, default_registry
from hpx_core.probe.passes import EventPlan, plan_events
from hpx_core.results import Measurement
from hpx_core.run.session import run_and_record
from hpx_core.sources import check_may_run
from hpx_core.validation import Overrides, ValidatedConfig, validate_config
from hpx_core.wire import Capture

log = structlog.get_logger(__name__)


class StageUnavailableError(HpxError):
    """The pipeline reached a stage it cannot perform here (e.g. no probe for a silicon board)."""

    exit_code = 3


@attrs.define
class RunState:
    """What the stages have produced so far; engine hooks receive it as ``ctx``."""

    validated: ValidatedConfig
    registry: Registry
    model: ModelInfo | None = None
    board: Board | None = None
    sources: SourceSet | None = None
    contribution: FirmwareContribution | None = None
    project: Project | None = None
    build: BuildResult | None = None
    placement: PlacementReport | None = None
    event_plan: EventPlan | None = None
    findings: tuple[SymbolFinding, ...] = ()
    measurement: Measurement | None = None
    bundle: Path | None = None
    done: list[str] = attrs.field(factory=list)

    @property
    def config(self) -> ProfileConfig:
        return self.validated.config

    @property
    def engine_config(self) -> Any:
        return self.validated.engine_config

    def hook(self, name: str) -> Any:
        """The selected engine's implementation of hook ``name``."""
        return self.registry.engine_hook(self.config.engine.type, name)

    def need(self, value: Any, what: str) -> Any:
        if value is None:
            raise PluginError(f"the pipeline has no {what} yet", "stages ran out of order")
        return value


Stage = Callable[[RunState], None]


@attrs.frozen
class ProfileOutcome:
    """How far a profile run got and what it produced."""

    stages: tuple[str, ...]
    state: RunState


def _config_stage(state: RunState) -> None:
    """The config was validated before the pipeline started; resolve the board it names."""
    try:
        state.board = get_board(state.config.target.board)
    except HpxError as error:
        raise state.validated.document.error("target.board", error.message, error.hint) from None


def _model_stage(state: RunState) -> None:
    """Read the model and check that the selected engine reads its format."""
    path = state.config.model.path
    if path is None:
        raise UsageError("no model given", "pass MODEL to hpx profile, or set model.path")
    state.model = load_model(path)
    engine = state.validated.engine.descriptor
    if state.model.format not in engine.model_formats:
        raise state.validated.document.error(
            "model.path",
            f"engine {engine.name!r} reads {', '.join(engine.model_formats)} models, "
            f"but {path.name} is a {state.model.format} model",
            "choose an engine for this model format (hpx plugins lists them)",
        )


def _license_stage(state: RunState) -> None:
    """Refuse, before anything is fetched, an engine whose license forbids this board."""
    engine = state.config.engine
    check_may_run(engine.type, engine.backend, state.need(state.board, "board"))


def _sources_stage(state: RunState) -> None:
    """The counter plan first (an emulated board asked for PMU events is refused before any
    fetch; a PMU board reads its event names from the SDK), then the engine's sources."""
    state.event_plan = plan_events(state.need(state.board, "board"),
                                   state.config.profiling.counters,
                                   offline=state.config.build.offline)
    state.sources = _answer(state, "hpx_materialize_sources", ctx=state)


def _firmware_stage(state: RunState) -> None:
    contribution = _answer(state, "hpx_generate_firmware", ctx=state)
    profiling = state.config.profiling
    plan = state.need(state.event_plan, "counter plan")
    settings = HarnessSettings(
        engine=state.config.engine.type, iterations=profiling.iterations, warmup=profiling.warmup,
        pmu_events=plan.counters.passes[0],
    )
    state.contribution = contribution
    check_plan(state.need(state.board, "board"), contribution.buffers)  # before compiling
    state.project = render_project(
        _work_dir(state), state.need(state.board, "board"), contribution, settings
    )


def _build_stage(state: RunState) -> None:
    model = state.need(state.model, "model")
    state.build = build_project(
        state.need(state.project, "project"),
        get_toolchain(state.config.target.toolchain),
        config=_config_json(state),
        model_sha256=model.sha256,
        sources=state.sources,
        jobs=state.config.build.jobs or 2,
    )
    state.placement = check_elf(  # a linker that broke the plan stops the run here
        state.need(state.board, "board"), state.build.elf,
        state.need(state.contribution, "firmware").buffers,
    )


def _verify_stage(state: RunState) -> None:
    """Every plugin may inspect the linked symbols; a fatal failed finding stops the run."""
    built = state.need(state.build, "build")
    inventory = symbol_inventory(built.elf)
    answers = state.registry.manager.hook.hpx_verify_symbols(ctx=state, inventory=inventory)
    state.findings = tuple(f for answer in answers for f in answer)
    for finding in state.findings:
        if finding.fatal and not finding.passed:
            raise BuildError(
                f"kernel check {finding.check!r} failed: {finding.detail}",
                f"the firmware at {built.elf} did not link what "
                f"{state.config.engine.type}/{state.config.engine.backend} needs",
            )


def _run_stage(state: RunState) -> None:
    board = state.need(state.board, "board")
    built = state.need(state.build, "build")
    extra: dict[str, Any] = {"kernel_checks": [attrs.asdict(f) for f in state.findings]}
    plan = state.event_plan
    if plan is not None and (plan.counters.passes != ((),) or plan.counters.note):
        extra["counters"] = {"passes": [list(p) for p in plan.counters.passes],
                             "note": plan.counters.note}

    def extra_from(capture: Capture) -> Mapping[str, Any]:
        return _answer(state, "hpx_result_extras", ctx=state, capture=capture, optional=True) or {}

    if board.runner == "probe":
        from hpx_core.probe.stage import run_through_probe

        run_through_probe(state, board, built, _config_json(state),
                          provenance_extra=_provenance(state), extra=extra, extra_from=extra_from)
        return
    if board.runner != "qemu":
        raise StageUnavailableError(
            f"built {built.elf} for {board.name}; running on silicon needs a debug probe",
            "attach the EVB and run `hpx run` with the probe, or use an emulated board",
        )
    model = state.need(state.model, "model")
    record = run_and_record(
        board,
        built.elf,
        state.config.output.dir,
        engine=state.config.engine.type,
        timeout=600.0,
        toolchain=f"{built.toolchain} {built.toolchain_version}",
        model_sha256=model.sha256,
        config=_config_json(state),
        build=build_info(built),
        provenance_extra=_provenance(state),
        extra=extra,
        extra_from=extra_from,
    )
    state.measurement = record.measurement
    state.bundle = record.bundle


STAGES: tuple[tuple[str, Stage], ...] = (
    ("config", _config_stage),
    ("model analysis", _model_stage),
    ("license check", _license_stage),
    ("sources", _sources_stage),
    ("firmware generation", _firmware_stage),
    ("build", _build_stage),
    ("kernel verification", _verify_stage),
    ("run, capture and results", _run_stage),
)


def profile(
    model: Path | None,
    config_file: Path | None,
    overrides: Overrides,
    reg: Registry | None = None,
    on_stage: Callable[[str], None] | None = None,
    *,
    until: str | None = None,
) -> ProfileOutcome:
    """Run every stage in order (or up to and including ``until``)."""
    all_overrides = dict(overrides)
    if model is not None:
        all_overrides["model.path"] = (str(model), "MODEL argument")
    reg = reg or default_registry()
    state = RunState(validate_config(config_file, all_overrides, reg), reg)
    for name, stage in STAGES:
        if on_stage:
            on_stage(name)
        log.info("stage", name=name)
        stage(state)
        state.done.append(name)
        if name == until:
            break
    return ProfileOutcome(tuple(state.done), state)


def _answer(state: RunState, hook: str, *, optional: bool = False, **kwargs: Any) -> Any:
    answer = state.hook(hook)(**kwargs)
    if answer is None and not optional:
        entry = state.validated.engine
        raise PluginError(
            f"engine {entry.descriptor.name!r} does not implement {hook}",
            f"this engine cannot run the pipeline yet; ask the maintainers of "
            f"{entry.plugin.distribution}",
        )
    return answer


def _work_dir(state: RunState) -> Path:
    """Where the generated project lives: one folder per model, engine, backend and board."""
    model = state.need(state.model, "model")
    engine = state.config.engine
    board = state.need(state.board, "board").name
    name = f"{Path(model.path).stem}-{engine.type}-{engine.backend or 'default'}-{board}"
    return state.config.output.dir.parent / "hpx-work" / name


def _config_json(state: RunState) -> dict[str, Any]:
    """The resolved config with each value's origin, JSON-ready, for the bundle."""
    values = walk_values(state.config, state.validated.document)
    return {v.path: {"value": _plain(v.value), "from": v.origin} for v in values} | {
        "engine.config": _plain(attrs.asdict(state.engine_config))
        if attrs.has(type(state.engine_config))
        else None
    }


def _provenance(state: RunState) -> dict[str, Any]:
    sources = state.sources
    if sources is None:
        return {}
    return {
        "sources": sources.provenance,
        "repositories": [
            {"name": r.name, "url": r.url, "commit": r.commit, "license": r.license}
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
