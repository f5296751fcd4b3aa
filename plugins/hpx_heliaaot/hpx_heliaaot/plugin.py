"""Hook implementations of the ``helia-aot`` engine."""

from __future__ import annotations

from hpx_core import ConfigContext, EngineDescriptor, hookimpl
from hpx_heliaaot.config import ENV, HeliaAotConfig

ENGINE = "helia-aot"


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
    return ctx.document.structure(HeliaAotConfig, "engine.config", env=ENV)
