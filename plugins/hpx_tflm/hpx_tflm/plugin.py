"""Hook implementations of the ``tflm`` engine.

The hooks read these attributes of the pipeline's context: ``config`` (ProfileConfig),
``engine_config`` (TflmConfig; or ``validated.engine_config``), ``board`` (Board), ``model``
(ModelInfo) and, from the firmware stage on, ``sources`` (the SourceSet this plugin returned).
The work is done by the typed functions of :mod:`hpx_tflm.engine`.
"""

from __future__ import annotations

from typing import Any

from hpx_core import (
    ConfigContext,
    EngineDescriptor,
    context_engine,
    context_engine_config,
    hookimpl,
)
from hpx_core.build import SymbolInventory
from hpx_core.engine import FirmwareContribution, LayerRecord, SourceSet, SymbolFinding
from hpx_core.results import measure
from hpx_core.tflm_family import plan_arena
from hpx_core.tflm_family.results import family_extra
from hpx_core.wire import Capture
from hpx_tflm.config import TflmConfig
from hpx_tflm.engine import (
    BACKENDS,
    ENGINE,
    firmware_info,
    tflm_firmware,
    tflm_layers,
    tflm_library,
    tflm_sources,
)
from hpx_tflm.symbols import verify_symbols


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [
        EngineDescriptor(
            name=ENGINE,
            model_formats=("tflite",),
            config_class=TflmConfig,
            summary="upstream TensorFlow Lite Micro (Apache-2.0)",
            backends=BACKENDS,
        )
    ]


@hookimpl
def hpx_validate_config(ctx: ConfigContext) -> TflmConfig:
    return ctx.document.structure(TflmConfig, "engine.config")



@hookimpl
def hpx_materialize_sources(ctx: Any) -> SourceSet:
    config = context_engine_config(ctx, TflmConfig)
    return tflm_sources(ctx.config.engine.backend, ctx.board, config,
                        offline=ctx.config.build.offline)


@hookimpl
def hpx_generate_firmware(ctx: Any) -> FirmwareContribution:
    jobs = ctx.config.build.jobs or 2
    library = tflm_library(ctx.sources, ctx.config.engine.backend, ctx.board, jobs=jobs)
    arena = plan_arena(ctx.config.model.arena_size, ctx.board)
    config = context_engine_config(ctx, TflmConfig)
    return tflm_firmware(ctx.model, config, ctx.sources, library, arena).contribution


@hookimpl
def hpx_verify_symbols(ctx: Any, inventory: SymbolInventory) -> list[SymbolFinding]:
    if context_engine(ctx) != ENGINE:
        return []
    return verify_symbols(ctx.config.engine.backend or "reference", set(inventory.names()))


@hookimpl
def hpx_parse_results(ctx: Any, capture: Capture) -> list[LayerRecord]:
    """One record per operator invocation, named ``<index>_<op>``, op = the TFLite builtin."""
    measurement = measure(capture, ctx.board)
    return tflm_layers(
        [(layer.index, layer.name, layer.op) for layer in measurement.layers],
        {layer.index: {measurement.units: layer.median} for layer in measurement.layers},
    )


@hookimpl
def hpx_result_extras(ctx: Any, capture: Capture) -> dict[str, Any]:
    """Input used, arena (allocated and the 1.5x suggestion), outputs against the host."""
    return family_extra(capture, firmware_info(ctx.contribution), ctx.model)
