"""One profile run: validate the config, then the stages in order, composed here.

:func:`profile` is the one entry point: the CLI, the Python API, every engine's end-to-end
tests and the benchmarks go through it. Each stage is a function of the run's fixed inputs
(:class:`~hpx_core.pipeline.context.RunContext`) and of the frozen products of the stages
before it (:mod:`.products`), and answers its own product; :func:`_run` below is the only
place that passes them on, so the data flow reads top to bottom. ``until`` stops after a named
stage (``"kernel verification"`` for a build-only run); ``on_stage`` hears each stage's name
as it starts, ``on_note`` what the user should know on the way (a board farm's place is busy
and the run waits for it); ``place``, asked as the run stage starts, names the board farm
place it runs on instead of ``target.place`` (the matrix hands each cell the place it took
then). :func:`check` runs the stages that need no fetch, for ``hpx config validate``. The
locks a run takes (its work folder's) are held until it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TypeVar

import attrs

from hpx_core.config import ConfigDocument
from hpx_core.config.validate import Overrides, validate_config
from hpx_core.errors import ConfigError, UsageError
from hpx_core.log import get_logger
from hpx_core.pipeline.arena_fit import ArenaTooSmallError, fitted_error
from hpx_core.pipeline.building import build_firmware, verify_kernels
from hpx_core.pipeline.checks import (
    analyze_model,
    check_config,
    check_license,
    plan_counters,
)
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.firmware import fetch_sources, generate_firmware
from hpx_core.pipeline.memory import plan_memory
from hpx_core.pipeline.products import (
    Checked,
    MemoryPlan,
    ProfileOutcome,
    StageUnavailableError,
    need,
)
from hpx_core.pipeline.running import run_firmware
from hpx_core.pipeline.workdir import claim_work_folder
from hpx_core.plugins import Registry, default_registry

__all__ = [
    "CHECKED_STAGES",
    "STAGE_NAMES",
    "ProfileOutcome",
    "StageUnavailableError",
    "check",
    "profile",
]

STAGE_NAMES = ("config", "model analysis", "license check", "counter plan", "memory plan",
               "sources", "firmware generation", "build", "kernel verification",
               "run, capture and results")
CHECKED_STAGES = STAGE_NAMES[: STAGE_NAMES.index("memory plan") + 1]
"""The stages before the first fetch: what :func:`check` runs."""
log = get_logger(__name__)
T = TypeVar("T")


def profile(
    model: Path | None,
    config_file: Path | None,
    overrides: Overrides,
    reg: Registry | None = None,
    on_stage: Callable[[str], None] | None = None,
    *,
    until: str | None = None,
    on_note: Callable[[str], None] | None = None,
    place: Callable[[], str | None] | None = None,
    validating: bool = False,
) -> ProfileOutcome:
    """Run every stage in order (or up to and including ``until``); ``validating``: the
    firmware of ``hpx validate`` (with the harness's validation pass)."""
    if until is not None and until not in STAGE_NAMES:
        raise UsageError(f"there is no stage {until!r}", f"stages: {', '.join(STAGE_NAMES)}")
    all_overrides = dict(overrides)
    if model is not None:
        all_overrides["model.path"] = (str(model), "MODEL argument")
    reg = reg or default_registry()
    ctx = RunContext(validate_config(config_file, all_overrides, reg), reg, notify=on_note,
                     place_now=place, runs=until in (None, STAGE_NAMES[-1]),
                     validating=validating)
    try:
        return _run(ctx, until, on_stage)
    except ArenaTooSmallError as short:  # said with the bytes that fit, measured once more
        raise fitted_error(ctx, short, lambda again: _run(again, None, None)) from None


def check(config_file: Path, overrides: Overrides | None = None,
          reg: Registry | None = None) -> ProfileOutcome:
    """Every check ``profile`` makes before its first fetch (config, model analysis, license,
    counter plan, memory plan), with nothing fetched, built or written; a refusal is the same
    error."""
    if not ConfigDocument.load(config_file).tree:
        raise ConfigError(f"{config_file} sets nothing",
                          "a config names at least its engine or its model (see configs/)")
    reg = reg or default_registry()
    ctx = RunContext(validate_config(config_file, overrides, reg), reg, checking=True,
                     runs=False)
    return _run(ctx, CHECKED_STAGES[-1], None)


class _UntilReachedError(Exception):
    """The run reached ``until``: nothing more to do."""


@attrs.define
class _Stages:
    """Runs one named stage at a time: says it starts, times it, and keeps the outcome so far
    (what a stop or an error hands back); stops once the stage ``until`` names is kept."""

    outcome: ProfileOutcome
    until: str | None
    on_stage: Callable[[str], None] | None

    def __call__(self, name: str, stage: Callable[[], T]) -> T:
        if self.on_stage:
            self.on_stage(name)
        log.info("stage", name=name)
        started = time.monotonic()
        made = stage()
        self.outcome = attrs.evolve(
            self.outcome, stages=(*self.outcome.stages, name),
            seconds={**self.outcome.seconds, name: time.monotonic() - started})
        return made

    def keep(self, outcome: ProfileOutcome | None = None) -> None:
        """``outcome`` (a stage that made nothing: the one so far) is the run so far; stop
        when its last stage was ``until``."""
        self.outcome = outcome or self.outcome
        if self.outcome.stages and self.outcome.stages[-1] == self.until:
            raise _UntilReachedError


def _run(ctx: RunContext, until: str | None, on_stage: Callable[[str], None] | None
         ) -> ProfileOutcome:
    stages = _Stages(ProfileOutcome((), {}, ctx.validated), until, on_stage)
    with ExitStack() as resources:
        try:
            _stages(ctx, stages, resources)
        except _UntilReachedError:
            pass
        except StageUnavailableError as stopped:
            stopped.outcome = stages.outcome
            raise
    return stages.outcome


def _checks(ctx: RunContext, run: _Stages) -> Checked:
    """The stages before the first fetch, each kept in the outcome's ``Checked``."""
    run("config", lambda: check_config(ctx))
    run.keep()
    model = run("model analysis", lambda: analyze_model(ctx))
    checked = Checked(model, unchecked=() if model is not None or not ctx.checking else (
        "the model (model.path is not set; hpx profile takes MODEL)",))
    run.keep(attrs.evolve(run.outcome, checked=checked))
    run("license check", lambda: check_license(ctx))
    run.keep()
    events, unchecked = run("counter plan", lambda: plan_counters(ctx))
    checked = attrs.evolve(checked, events=events,
                           unchecked=(*checked.unchecked, *([unchecked] if unchecked else [])))
    run.keep(attrs.evolve(run.outcome, checked=checked))
    memory = run("memory plan", lambda: plan_memory(ctx, model) if model else MemoryPlan())
    checked = attrs.evolve(checked, memory=memory, unchecked=(*checked.unchecked, *(
        [] if model else ["the memory plan (it places the model)"])))
    run.keep(attrs.evolve(run.outcome, checked=checked))
    return checked


def _stages(ctx: RunContext, run: _Stages, resources: ExitStack) -> None:
    """The stages in order; each takes what earlier ones made and answers its own product."""
    checked = _checks(ctx, run)
    model, events = need(checked.model, "model"), need(checked.events, "counter plan")
    memory = checked.memory
    sources = run("sources", lambda: fetch_sources(ctx))
    run.keep(attrs.evolve(run.outcome, sources=sources))
    work = claim_work_folder(ctx.validated, model, resources)
    firmware = run("firmware generation",
                   lambda: generate_firmware(ctx, model, memory, sources, events, work))
    run.keep(attrs.evolve(run.outcome, firmware=firmware))
    built = run("build", lambda: build_firmware(
        ctx, model, firmware, memory, sources,
        lambda plan: generate_firmware(ctx, model, plan, sources, events, work)))
    run.keep(attrs.evolve(run.outcome, built=built))
    findings = run("kernel verification", lambda: verify_kernels(ctx, model, built))
    run.keep(attrs.evolve(run.outcome, findings=findings))
    record = run("run, capture and results",
                 lambda: run_firmware(ctx, model, sources, built, events, findings))
    run.keep(attrs.evolve(run.outcome, record=record))
