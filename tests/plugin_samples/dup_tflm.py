"""A plugin that claims the engine name ``tflm``, which hpx-tflm already owns."""

from __future__ import annotations

from hpx_core.sdk import EngineDescriptor, hookimpl


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [EngineDescriptor("tflm", ("tflite",), dict)]
