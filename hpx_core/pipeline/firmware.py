"""The engine's sources and its glue: what the firmware is made of, rendered with the harness.

``fetch_sources`` asks the engine's own materialization, else materializes the pins it
declared. ``generate_firmware`` hands the engine a request with everything decided so far
(the model, or a corrected copy; the memory plan; the toolchain) and renders its contribution
with the harness into the run's work folder; the harness settings come from the config and
from the uncounted passes the run asked for (:mod:`hpx_core.pipeline.passes`).
"""

from __future__ import annotations

from pathlib import Path

from hpx_core.contract import FirmwareRequest, SourceSet, SourcesRequest
from hpx_core.firmware import HarnessSettings, render_project
from hpx_core.firmware.placement import check_plan
from hpx_core.models import ModelInfo
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.memory import with_planned_buffers
from hpx_core.pipeline.model_copy import model_for_engine
from hpx_core.pipeline.passes import harness_settings
from hpx_core.pipeline.products import Firmware, MemoryPlan
from hpx_core.probe.event_passes import EventPlan
from hpx_core.reading import keep_model
from hpx_core.sources import materialize

RUN_LOG = "run.log"
"""The run's log in the work folder: what engine tools printed; kept in the bundle."""


def fetch_sources(ctx: RunContext) -> SourceSet:
    """The engine's sources: its own materialization, or its declared pins from the cache."""
    offline = ctx.config.build.offline
    request = SourcesRequest(ctx.engine, ctx.board, ctx.registry.catalog, offline)
    answer = ctx.hooks.materialize_sources(ctx.engine.name, request)
    if answer is not None:
        return answer
    return materialize(request.catalog, request.engine.name, request.engine.backend,
                       offline=offline)


def generate_firmware(ctx: RunContext, model: ModelInfo, memory: MemoryPlan,
                      sources: SourceSet, events: EventPlan, work: Path) -> Firmware:
    """The engine's glue for ``model`` (a corrected copy when it lacks a field the engine
    needs) rendered into ``work``; the run's log starts empty here."""
    keep_model(model, ctx.registry, ctx.engine.name)  # past every check: the next run reads it
    needed = ctx.validated.engine.descriptor.model_fields
    engine_model, model_copy = model_for_engine(model, needed, work / "model", ctx.registry)
    config = ctx.config
    request = FirmwareRequest(
        engine=ctx.engine, board=ctx.board, model=engine_model, sources=sources,
        toolchain=config.target.toolchain, jobs=config.build.jobs or 2,
        scratch=work / "scratch", log=work / RUN_LOG, arena_size=config.model.arena_size,
        check_layers=config.profiling.check_layers, layout=memory.layout,
    )
    request.scratch.mkdir(parents=True, exist_ok=True)
    request.log.unlink(missing_ok=True)
    contribution = with_planned_buffers(ctx.hooks.generate_firmware(ctx.engine.name, request),
                                        memory.layout)
    profiling = config.profiling
    settings = harness_settings(ctx, contribution, HarnessSettings(
        engine=ctx.engine.name, iterations=profiling.iterations, warmup=profiling.warmup,
        pmu_events=events.counters.passes[0],
    ))
    check_plan(ctx.board, contribution.buffers)  # before compiling
    project = render_project(work, ctx.board, contribution, settings)
    return Firmware(contribution, project, work, model_copy)
