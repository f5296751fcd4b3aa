"""The host reference: the same model and input bytes through the ``tflite-micro`` Python
interpreter (the core compares the device's outputs with it: :mod:`hpx_core.results.outputs`)."""

from __future__ import annotations

from collections.abc import Sequence

from hpx_core.errors import ResultsError
from hpx_core.models import ModelInfo
from hpx_tflm_family.reference_cache import cached_outputs


def host_outputs(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo) -> tuple[bytes, ...]:
    """The raw bytes of every output of the host TFLM interpreter on ``inputs`` (kept in the
    hpx cache: :mod:`hpx_tflm_family.reference_cache`)."""
    return cached_outputs(model_data, inputs, lambda: interpret(model_data, inputs, model))


def interpret(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo) -> tuple[bytes, ...]:
    """Run the host TFLM interpreter once on ``inputs``; the raw bytes of every output."""
    import numpy as np

    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError as exc:  # pragma: no cover - a dependency of hpx-core
        raise ResultsError("the tflite-micro Python package is not installed",
                           "pip install tflite-micro") from exc
    interpreter = runtime.Interpreter.from_bytes(model_data)
    for index, (data, tensor) in enumerate(zip(inputs, model.inputs, strict=True)):
        array = np.frombuffer(data, dtype=np.dtype(tensor.dtype)).reshape(tensor.shape)
        interpreter.set_input(array, index)
    interpreter.invoke()
    return tuple(
        np.ascontiguousarray(interpreter.get_output(i)).tobytes() for i in range(len(model.outputs))
    )
