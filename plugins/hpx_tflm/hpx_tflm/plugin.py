"""Hook implementations of the ``tflm`` engine.

The hooks read these attributes of the pipeline's context: ``config`` (ProfileConfig),
``engine_config`` (TflmConfig), ``board`` (Board), ``model`` (ModelInfo) and, from the
firmware stage on, ``sources`` (the SourceSet this plugin returned). The work is done by the
typed functions of :mod:`hpx_tflm.engine`.
"""

from __future__ import annotations

from typing import Any

from hpx_core import ConfigContext, EngineDescriptor, hookimpl
from hpx_core.engine import FirmwareContribution, LayerRecord, SourceSet, SymbolFinding
from hpx_core.tflm_family import plan_arena
from hpx_tflm.config import TflmConfig
from hpx_tflm.engine import (
    BACKENDS,
    ENGINE,
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
    return tflm_sources(ctx.config.engine.backend, ctx.board, ctx.engine_config,
                        offline=ctx.config.build.offline)


@hookimpl
def hpx_generate_firmware(ctx: Any) -> FirmwareContribution:
    jobs = min(ctx.config.build.jobs or 2, 2)
    library = tflm_library(ctx.sources, ctx.config.engine.backend, ctx.board, jobs=jobs)
    arena = plan_arena(ctx.config.model.arena_size, ctx.board)
    return tflm_firmware(ctx.model, ctx.engine_config, ctx.sources, library, arena).contribution


@hookimpl
def hpx_verify_symbols(ctx: Any, inventory: Any) -> list[SymbolFinding]:
    if getattr(getattr(ctx, "config", None), "engine", None) is None:
        return []
    if ctx.config.engine.type != ENGINE:
        return []
    return verify_symbols(ctx.config.engine.backend or "reference", _names(inventory))


@hookimpl
def hpx_parse_results(ctx: Any, capture: Any) -> list[LayerRecord]:
    info = [(int(li.index), str(li.name), str(li.op)) for li in capture.layer_info]
    counts = {int(layer.index): dict(layer.counters) for layer in capture.layers}
    return tflm_layers(info, counts)


def _names(inventory: Any) -> set[str]:
    """Symbol names from an inventory: an iterable of names or of objects with ``.name``."""
    names = getattr(inventory, "names", inventory)
    return {n if isinstance(n, str) else str(n.name) for n in names}
