"""The host reference the exporter wrote beside the program, for the core's output check.

``<program>.output.f32`` holds output 0 as float32 in logical (NCHW) order, computed on the host
from the same reference input the glue feeds. The device sends the tensor in its memory order,
so the reference is handed over in that order.
"""

from __future__ import annotations

import struct
from pathlib import Path

from hpx_core.sdk import ModelError, ReferenceOutput
from hpx_core.sdk.models import ModelInfo
from hpx_executorch.firmware import memory_order


def reference_path(model: ModelInfo) -> Path:
    return model.path.with_name(f"{model.path.stem}.output.f32")


def reference_output(model: ModelInfo) -> ReferenceOutput | None:
    """Output 0 as the exporter computed it, in the device's memory order; None without a
    reference file or for an output that is not float32."""
    reference = reference_path(model)
    tensor = model.outputs[0] if model.outputs else None
    if tensor is None or tensor.dtype != "float32" or not reference.is_file():
        return None
    data = _read(reference, model)
    count = len(data) // 4
    logical = list(struct.unpack(f"<{count}f", data[: count * 4]))
    if tensor.size_bytes is None or count != tensor.size_bytes // 4:  # compared as it is
        return ReferenceOutput(0, "float32", data, _source(reference))
    ordered = memory_order(logical, tensor.shape, tensor.dim_order)
    return ReferenceOutput(0, "float32", struct.pack(f"<{count}f", *ordered), _source(reference))


def _read(reference: Path, model: ModelInfo) -> bytes:
    """The reference's bytes; a file that cannot be read is one error naming the program."""
    try:
        return reference.read_bytes()
    except OSError as error:
        raise ModelError(f"{model.path.name}: its host reference {reference.name} cannot be "
                         f"read ({error.strerror or type(error).__name__})",
                         "export the program again, or remove the file to run without a host "
                         "reference") from None


def _source(reference: Path) -> str:
    return f"host float32 reference {reference.name} (the exporter's, same input)"
