"""Hook implementations of the ``tflm`` engine."""

from __future__ import annotations

from hpx_core import ConfigContext, EngineDescriptor, hookimpl
from hpx_tflm.config import TflmConfig

ENGINE = "tflm"


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [
        EngineDescriptor(
            name=ENGINE,
            model_formats=("tflite",),
            config_class=TflmConfig,
            summary="upstream TensorFlow Lite Micro (Apache-2.0)",
            backends=("reference", "cmsis_nn"),
        )
    ]


@hookimpl
def hpx_validate_config(ctx: ConfigContext) -> TflmConfig:
    return ctx.document.structure(TflmConfig, "engine.config")
