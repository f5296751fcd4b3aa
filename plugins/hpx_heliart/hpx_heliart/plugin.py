"""Hook implementations of the ``helia-rt`` engine."""

from __future__ import annotations

from hpx_core import ConfigContext, EngineDescriptor, hookimpl
from hpx_heliart.config import ENV, HeliaRtConfig

ENGINE = "helia-rt"


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [
        EngineDescriptor(
            name=ENGINE,
            model_formats=("tflite",),
            config_class=HeliaRtConfig,
            summary="Ambiq heliaRT (Ambiq Apollo SDK License: Ambiq CPUs only)",
            backends=("helia", "cmsis_nn", "reference"),
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
