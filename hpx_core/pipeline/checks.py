"""The stages before the first fetch: the target, the model, the license, the counters.

A config these pass is refused later only for what needs a fetch, a build or a board;
``hpx config validate`` runs them (and the memory plan) with nothing fetched or written.
"""

from __future__ import annotations

from pathlib import Path

from hpx_core.boards import all_boards
from hpx_core.contract import ModelCheckRequest
from hpx_core.errors import ConfigError, ModelError, SourceError, UsageError
from hpx_core.firmware import get_toolchain
from hpx_core.models import ModelInfo
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.passes import check_passes
from hpx_core.pipeline.workdir import check_buildable
from hpx_core.probe.event_passes import EventPlan, plan_events
from hpx_core.reading import load_model
from hpx_core.runners import runner_for
from hpx_core.sources import check_may_run


def check_config(ctx: RunContext) -> None:
    """The config stage: refuse a toolchain that is not installed, folders CMake cannot build
    in, what an uncounted pass cannot do and a board farm's place that does not answer, before
    anything is fetched or built."""
    get_toolchain(ctx.config.target.toolchain)
    check_buildable(ctx.validated)
    check_passes(ctx)
    target = ctx.config.target
    if target.place is not None:
        runner_for(ctx.board, place=target.place, farm=ctx.config.farm).check()


def analyze_model(ctx: RunContext) -> ModelInfo | None:
    """Read the model and check that the selected engine reads its format; None for a
    checking run whose config names no model (``hpx profile MODEL -c FILE``)."""
    path = ctx.config.model.path
    if path is None:
        if ctx.checking:
            return None
        raise UsageError("no model given", "pass MODEL to hpx profile, or set model.path")
    document = ctx.validated.document
    if not Path(path).is_file():
        raise document.error("model.path", f"model file not found: {path}",
                             "check the path (one written in a config file is relative to "
                             "that file)")
    engine = ctx.validated.engine.descriptor
    model = load_model(path, ctx.registry, engine.name)  # the engine's own reading first
    if model.format not in engine.model_formats:
        raise document.error(
            "model.path",
            f"engine {engine.name!r} reads {', '.join(engine.model_formats)} models, "
            f"but {path.name} is a {model.format} model",
            "choose an engine for this model format (hpx plugins lists them)",
        )
    check_preparable(ctx, model)
    return model


def check_preparable(ctx: RunContext, model: ModelInfo) -> None:
    """Refuse a model the engine's interpreter cannot prepare (its ``hpx_check_model``), here
    rather than as the interpreter's failure after sources, a build and the cache were
    written."""
    refusal = ctx.hooks.check_model(ctx.engine.name, ModelCheckRequest(ctx.engine, model))
    if refusal is not None:
        raise ModelError(f"{model.path.name}: {refusal.message}", refusal.hint)


def check_license(ctx: RunContext) -> None:
    """Refuse, before anything is fetched, an engine whose license forbids this board."""
    engine = ctx.engine
    check_may_run(ctx.registry.catalog, engine.name, engine.backend, ctx.board,
                  all_boards().values())


def plan_counters(ctx: RunContext) -> tuple[EventPlan | None, str | None]:
    """The counter passes: an emulated board asked for PMU events is refused before any
    fetch; a PMU board reads its event names from the pinned SDK (a checking run only from
    the cache, else it says what it could not check)."""
    board, requested = ctx.board, ctx.config.profiling.counters
    try:
        return plan_events(board, requested,
                           offline=ctx.config.build.offline or ctx.checking), None
    except SourceError:
        if not ctx.checking:
            raise
        if not (requested and board.silicon is not None):
            return None, None
        return None, (f"profiling.counters against {board.name}'s PMU event names: they come "
                      f"from its SDK, not in the cache (hpx sources fetch --board-family "
                      f"{board.silicon.family})")
    except ConfigError as error:
        raise ctx.validated.document.error("profiling.counters", error.message,
                                           error.hint) from None
