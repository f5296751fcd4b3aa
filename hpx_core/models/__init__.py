"""Model analysis: the records every format's reader fills, and the core's own reading tools.

A model is read by the plugin of its format through ``hpx_read_model`` (:mod:`hpx_core.reading`
asks them); the ``.tflite`` reader here is the core's own, registered as a default plugin
(:mod:`hpx_core.default_plugins`). Importing the package (the contract does) loads no reader.
"""

from __future__ import annotations

from hpx_core.models.info import (
    ModelInfo,
    Operator,
    Quantization,
    TensorInfo,
)

MAX_MODEL_BYTES = 256 << 20
"""The largest model file hpx reads: many times any microcontroller's flash, so only a file
that is not a model (or a path to a device) is refused by it."""

__all__ = [
    "MAX_MODEL_BYTES",
    "ModelInfo",
    "Operator",
    "Quantization",
    "TensorInfo",
]
