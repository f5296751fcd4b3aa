"""The kernel calls of a benchmark as records, and what hpx's model analysis shows of them.

Shapes follow TensorFlow Lite: activations NHWC, convolution filters OHWI, fully connected
weights ``[units, depth]``. ``same`` padding keeps ``ceil(input / stride)`` outputs and puts the
odd row or column of padding after the input, as TFLite and CMSIS-NN do.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import ClassVar

import attrs

from hpx_core.sdk.models import ModelInfo, Operator, TensorInfo

Shape = tuple[int, ...]
MAX_DIM = 4096
MAX_KERNELS = 240  # the harness measures at most HPX_MAX_LAYERS layers
MAX_DEPTH = (2**31 - 1) // (255 * 127)  # products an int32 accumulator holds with any data
FORMAT = "kernelbench"


@attrs.frozen
class Conv2d:
    """An int8 convolution; ``pads`` are the rows and columns of padding before the input."""

    op: ClassVar[str] = "conv2d"
    name: str
    input: Shape
    filter: Shape
    stride: tuple[int, int]
    padding: str
    pads: tuple[int, int]
    output: Shape

    @property
    def depth(self) -> int:
        """Products per output element: kh * kw * input channels."""
        return self.filter[1] * self.filter[2] * self.filter[3]

    @property
    def channels(self) -> int:
        return self.filter[0]

    @property
    def weights(self) -> int:
        return math.prod(self.filter)


@attrs.frozen
class FullyConnected:
    """An int8 fully connected layer over the previous output flattened per batch."""

    op: ClassVar[str] = "fully_connected"
    name: str
    input: Shape
    units: int

    @property
    def depth(self) -> int:
        return math.prod(self.input[1:])

    @property
    def channels(self) -> int:
        return self.units

    @property
    def weights(self) -> int:
        return self.units * self.depth

    @property
    def output(self) -> Shape:
        return (self.input[0], self.units)


KernelCall = Conv2d | FullyConnected


def macs(call: KernelCall) -> int:
    """Every output element accumulates ``depth`` products."""
    return math.prod(call.output) * call.depth


def params(call: KernelCall) -> int:
    """Weights and biases (one int32 per output channel)."""
    return call.weights + call.channels


@attrs.frozen
class KernelList:
    """A benchmark: kernel calls in order, each reading the previous call's output."""

    path: Path
    input: Shape
    calls: tuple[KernelCall, ...]

    @property
    def output(self) -> Shape:
        return self.calls[-1].output

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.calls)


def conv_geometry(shape: Shape, filt: Shape, stride: tuple[int, int],
                  padding: str) -> tuple[Shape, tuple[int, int]] | None:
    """Output shape and leading padding of a convolution; None when ``valid`` cannot fit."""
    batches, height, width, _ = shape
    channels, k_h, k_w, _ = filt
    if padding == "valid":
        if k_h > height or k_w > width:
            return None
        out_h = (height - k_h) // stride[0] + 1
        out_w = (width - k_w) // stride[1] + 1
        return (batches, out_h, out_w, channels), (0, 0)
    out_h = -(-height // stride[0])
    out_w = -(-width // stride[1])
    pad_h = max((out_h - 1) * stride[0] + k_h - height, 0) // 2
    pad_w = max((out_w - 1) * stride[1] + k_w - width, 0) // 2
    return (batches, out_h, out_w, channels), (pad_h, pad_w)


def model_info(kernels: KernelList, size: int, sha256: str) -> ModelInfo:
    """The core's view of a benchmark: one operator per call, the input and the last output."""
    operators = [
        Operator(index=i, name=call.op, inputs=[call.input], outputs=[call.output],
                 macs=macs(call), params=params(call))
        for i, call in enumerate(kernels.calls)
    ]
    first, last = kernels.calls[0], kernels.calls[-1]
    return ModelInfo(
        format=FORMAT,
        path=kernels.path,
        sha256=sha256,
        size_bytes=size,
        operators=operators,
        inputs=[TensorInfo("input", "int8", first.input, math.prod(first.input))],
        outputs=[TensorInfo(last.name, "int8", last.output, math.prod(last.output))],
        weight_bytes=sum(call.weights + 4 * call.channels for call in kernels.calls),
        resolver_ops=tuple(dict.fromkeys(call.op for call in kernels.calls)),
    )
