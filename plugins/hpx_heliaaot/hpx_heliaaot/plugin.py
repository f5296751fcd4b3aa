"""Hook implementations of the ``helia-aot`` engine.

The installed compiler is checked when the engine's config is validated (missing or below the
baseline's floor: the version found, the floor and the pip command). Its output is under the
Ambiq Apollo SDK License: the source stage refuses non-Ambiq CPUs before fetching anything, and
refuses a helia-aot whose generated code needs a newer ns-cmsis-nn than the one it would build
against.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import attrs

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
from hpx_core.tflm_family.results import output_checks
from hpx_core.wire import Capture
from hpx_heliaaot.compiler import require_helia_aot
from hpx_heliaaot.config import ENV, HeliaAotConfig
from hpx_heliaaot.engine import ENGINE, aot_firmware, aot_kernels, aot_sources, firmware_info
from hpx_heliaaot.symbols import verify_symbols


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [
        EngineDescriptor(
            name=ENGINE,
            model_formats=("tflite",),
            config_class=HeliaAotConfig,
            summary="Ambiq heliaAOT compiler (Ambiq Apollo SDK License: Ambiq CPUs only)",
        )
    ]


@hookimpl
def hpx_validate_config(ctx: ConfigContext) -> HeliaAotConfig:
    config = ctx.document.structure(HeliaAotConfig, "engine.config", env=ENV)
    require_helia_aot()
    return config




@hookimpl
def hpx_materialize_sources(ctx: Any) -> SourceSet:
    config = context_engine_config(ctx, HeliaAotConfig)
    return aot_sources(ctx.board, config, offline=ctx.config.build.offline)


@hookimpl
def hpx_generate_firmware(ctx: Any) -> FirmwareContribution:
    kernels = aot_kernels(ctx.sources, ctx.board, jobs=ctx.config.build.jobs or 2)
    config = context_engine_config(ctx, HeliaAotConfig)
    with tempfile.TemporaryDirectory(prefix="hpx-aot-") as work:
        return aot_firmware(ctx.model, config, ctx.board, kernels, Path(work)).contribution


@hookimpl
def hpx_verify_symbols(ctx: Any, inventory: SymbolInventory) -> list[SymbolFinding]:
    if context_engine(ctx) != ENGINE:
        return []
    config = context_engine_config(ctx, HeliaAotConfig)
    return verify_symbols(config.prefix, set(inventory.names()))


@hookimpl
def hpx_parse_results(ctx: Any, capture: Capture) -> list[LayerRecord]:
    """One record per operator, named ``OP_TYPE:op_id`` as the compiler's manifest names it."""
    measurement = measure(capture, ctx.board)
    return [LayerRecord(index=layer.index, name=layer.name, op=layer.op,
                        counters={measurement.units: layer.median})
            for layer in measurement.layers]


@hookimpl
def hpx_result_extras(ctx: Any, capture: Capture) -> dict[str, Any]:
    """The compiler's operator manifest and memory plan, and the outputs against the host."""
    info = firmware_info(ctx.contribution)
    checks = output_checks(capture, info, ctx.model)
    return {
        "helia_aot": info["helia_aot"], "platform": info["platform"], "input": info["input"],
        "operators": info["operators"], "memory_plan": info["memory_plan"],
        "outputs": {"reference": "tflite-micro Python interpreter, same model and input bytes",
                    "exact": all(c.exact for c in checks),
                    "tensors": [attrs.asdict(c) for c in checks]},
    }
