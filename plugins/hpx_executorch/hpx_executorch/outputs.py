"""Device output against a host reference the exporter wrote beside the program.

``<program>.output.f32`` holds output 0 as float32 in logical (NCHW) order, computed on the host
from the same reference input the glue feeds. The device sends the tensor in its memory order.
"""

from __future__ import annotations

import struct
from pathlib import Path

import attrs

from hpx_core.models import ModelInfo
from hpx_executorch.firmware import memory_order


@attrs.frozen
class OutputCheck:
    """Element-by-element comparison of output 0 (float32)."""

    reference: str
    elements: int
    differing: int
    max_abs_diff: float

    @property
    def exact(self) -> bool:
        return self.elements > 0 and self.differing == 0


def reference_path(model: ModelInfo) -> Path:
    return model.path.with_name(f"{model.path.stem}.output.f32")


def check_output(model: ModelInfo, device: bytes, reference: Path) -> OutputCheck:
    tensor = model.outputs[0]
    count = len(device) // 4
    expected = reference.read_bytes()
    if tensor.dtype != "float32" or len(expected) != len(device):
        return OutputCheck(reference.name, count, count, float("inf"))
    got = struct.unpack(f"<{count}f", device)
    logical = list(struct.unpack(f"<{count}f", expected))
    want = memory_order(logical, tensor.shape, tensor.dim_order)
    diffs = [abs(a - b) for a, b in zip(got, want, strict=True)]
    return OutputCheck(reference.name, count, sum(d > 0 for d in diffs), max(diffs, default=0.0))
