"""Hook implementations of the ``helia-rt`` engine.

The hooks read the pipeline's context (``config``, ``engine_config`` or
``validated.engine_config``, ``board``, ``model``, and from the firmware stage on ``sources``);
the work is done by the typed functions of :mod:`hpx_heliart.engine`. heliaRT is under the
Ambiq Apollo SDK License: the source stage refuses non-Ambiq CPUs before fetching anything.
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
from hpx_heliart.config import ENV, HeliaRtConfig
from hpx_heliart.engine import (
    BACKENDS,
    ENGINE,
    check_backend,
    firmware_info,
    heliart_firmware,
    heliart_library,
    heliart_sources,
)
from hpx_heliart.symbols import verify_symbols


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [
        EngineDescriptor(
            name=ENGINE,
            model_formats=("tflite",),
            config_class=HeliaRtConfig,
            summary="Ambiq heliaRT (Ambiq Apollo SDK License: Ambiq CPUs only)",
            backends=BACKENDS,
        )
    ]


@hookimpl
def hpx_validate_config(ctx: ConfigContext) -> HeliaRtConfig:
    config = ctx.document.structure(HeliaRtConfig, "engine.config", env=ENV)
    chosen = [name for name in ("source_path", "dist_path", "source") if getattr(config, name)]
    if len(chosen) > 1:
        raise ctx.document.error(
            f"engine.config.{chosen[1]}",
            f"{' and '.join(chosen)} both choose where heliaRT comes from",
            "keep one of them (check HELIART_SOURCE_PATH / HELIART_DIST_PATH too)",
        )
    return config




@hookimpl
def hpx_materialize_sources(ctx: Any) -> SourceSet:
    config = context_engine_config(ctx, HeliaRtConfig)
    return heliart_sources(ctx.config.engine.backend, ctx.board, config,
                           offline=ctx.config.build.offline)


@hookimpl
def hpx_generate_firmware(ctx: Any) -> FirmwareContribution:
    config = context_engine_config(ctx, HeliaRtConfig)
    library = heliart_library(ctx.sources, ctx.config.engine.backend, ctx.board, config,
                              jobs=ctx.config.build.jobs or 2)
    arena = plan_arena(ctx.config.model.arena_size, ctx.board)
    return heliart_firmware(ctx.model, config, ctx.sources, library, arena).contribution


@hookimpl
def hpx_verify_symbols(ctx: Any, inventory: SymbolInventory) -> list[SymbolFinding]:
    if context_engine(ctx) != ENGINE:
        return []
    return verify_symbols(check_backend(ctx.config.engine.backend), set(inventory.names()))


@hookimpl
def hpx_parse_results(ctx: Any, capture: Capture) -> list[LayerRecord]:
    """One record per operator invocation, named ``<index>_<op>``, op = the TFLite builtin."""
    measurement = measure(capture, ctx.board)
    return [LayerRecord(index=layer.index, name=layer.name, op=layer.op,
                        counters={measurement.units: layer.median})
            for layer in measurement.layers]


@hookimpl
def hpx_result_extras(ctx: Any, capture: Capture) -> dict[str, Any]:
    """Input used, arena (allocated and the 1.5x suggestion), outputs against the host."""
    info = firmware_info(ctx.contribution)
    return {"backend": info["backend"], **family_extra(capture, info, ctx.model)}
