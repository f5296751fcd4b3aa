"""The host reference: the same model and input bytes through the ``tflite-micro`` Python
interpreter, and the comparison of the device's outputs with it (exact match expected)."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from hpx_core.errors import ResultsError
from hpx_core.models import ModelInfo
from hpx_core.tflm_family.reference_cache import cached_outputs


@attrs.frozen
class OutputCheck:
    """One output tensor compared with the host reference."""

    tensor: int
    size: int
    exact: bool
    max_abs_diff: float
    mismatched: int


def host_outputs(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo) -> tuple[bytes, ...]:
    """The raw bytes of every output of the host TFLM interpreter on ``inputs`` (kept in the
    hpx cache: :mod:`hpx_core.tflm_family.reference_cache`)."""
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


def compare_outputs(
    device: Sequence[bytes], host: Sequence[bytes], model: ModelInfo
) -> tuple[OutputCheck, ...]:
    """Exact comparison per output; the largest absolute difference when they differ."""
    if len(device) != len(host):
        raise ResultsError(f"the device sent {len(device)} outputs, the model has {len(host)}",
                           "the firmware and the model do not match: rebuild")
    checks = []
    for index, (got, want, tensor) in enumerate(zip(device, host, model.outputs, strict=True)):
        if len(got) != len(want):
            raise ResultsError(f"output {index}: device sent {len(got)} bytes, expected "
                               f"{len(want)}", "the firmware and the model do not match")
        exact = got == want  # the usual case needs no arithmetic (nor NumPy)
        checks.append(OutputCheck(index, len(got), True, 0.0, 0) if exact
                      else _differing(index, got, want, tensor.dtype))
    return tuple(checks)


def _differing(index: int, got: bytes, want: bytes, dtype_name: str) -> OutputCheck:
    import numpy as np

    dtype = np.dtype(dtype_name)
    diff = np.abs(np.frombuffer(got, dtype=dtype).astype(np.float64)
                  - np.frombuffer(want, dtype=dtype).astype(np.float64))
    return OutputCheck(index, len(got), False, float(diff.max()) if diff.size else 0.0,
                       int(np.count_nonzero(diff)))
