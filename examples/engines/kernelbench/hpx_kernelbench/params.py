"""Weights, biases, the input and the quantization of a benchmark, made from a seed.

The bytes come from SHAKE-256 of ``seed``, the kernel's name and what is made, so they are the
same on every machine and Python version (a NumPy random generator promises no such thing), and
renaming or adding one kernel leaves the others' data alone. The scales are chosen from each
kernel's depth so that outputs spread over the int8 range instead of saturating.
"""

from __future__ import annotations

import hashlib
import math

import attrs
import numpy as np
import numpy.typing as npt

from hpx_kernelbench.kernels import KernelCall, KernelList

I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
ZERO_POINT_SPAN = 32  # zero points are drawn from [-16, 15]
OUTPUT_SPREAD = 32.0  # aimed standard deviation of an output, in int8 steps


def _bytes(seed: int, kernel: str, what: str, count: int) -> bytes:
    return hashlib.shake_256(f"kernelbench/{seed}/{kernel}/{what}".encode()).digest(count)


def _u32(seed: int, kernel: str, what: str, count: int) -> npt.NDArray[np.uint32]:
    return np.frombuffer(_bytes(seed, kernel, what, 4 * count), dtype="<u4").astype(np.uint32)


def _zero_point(seed: int, kernel: str, what: str) -> int:
    return _bytes(seed, kernel, what, 1)[0] % ZERO_POINT_SPAN - ZERO_POINT_SPAN // 2


@attrs.frozen(eq=False)
class KernelParams:
    """One call's constants. ``multipliers``/``shifts`` hold one entry per output channel for a
    convolution and a single entry for a fully connected layer (per-tensor)."""

    weights: I8
    bias: I32
    multipliers: I32
    shifts: I32
    input_zero_point: int
    output_zero_point: int


@attrs.frozen(eq=False)
class BenchmarkData:
    """The input fed to the first call and every call's constants, in call order."""

    seed: int
    input: I8
    kernels: tuple[KernelParams, ...]


def base_shift(depth: int) -> int:
    """The shift whose multipliers in [0.5, 1) scale ``depth`` products to OUTPUT_SPREAD."""
    product_std = 74.0 * 73.0  # (uniform int8 + offset) x (uniform symmetric int8 weight)
    scale = OUTPUT_SPREAD / (product_std * math.sqrt(depth))
    return math.floor(math.log2(scale)) + 1


def kernel_params(seed: int, call: KernelCall, input_zero_point: int) -> KernelParams:
    """Deterministic constants of one call (weights in [-127, 127], as TFLite's)."""
    name = call.name
    raw = np.frombuffer(_bytes(seed, name, "weights", call.weights), dtype=np.int8)
    weights = np.maximum(raw, -127).astype(np.int8)
    bound = 64 * call.depth
    bias = (_u32(seed, name, "bias", call.channels) % (2 * bound + 1)).astype(np.int64) - bound
    per_channel = call.op == "conv2d"
    count = call.channels if per_channel else 1
    multipliers = (1 << 30) + (_u32(seed, name, "multiplier", count) % (1 << 30))
    jitter = np.frombuffer(_bytes(seed, name, "shift", count), dtype=np.uint8) % 2
    shifts = base_shift(call.depth) - jitter.astype(np.int64)
    return KernelParams(
        weights=weights,
        bias=bias.astype(np.int32),
        multipliers=multipliers.astype(np.int32),
        shifts=shifts.astype(np.int32),
        input_zero_point=input_zero_point,
        output_zero_point=_zero_point(seed, name, "output zero point"),
    )


def benchmark_data(kernels: KernelList, seed: int) -> BenchmarkData:
    """The input and every call's constants; each call's input zero point is the previous
    call's output zero point."""
    count = math.prod(kernels.input)
    data = np.frombuffer(_bytes(seed, "input", "values", count), dtype=np.int8).copy()
    zero_point = _zero_point(seed, "input", "zero point")
    made: list[KernelParams] = []
    for call in kernels.calls:
        made.append(kernel_params(seed, call, zero_point))
        zero_point = made[-1].output_zero_point
    return BenchmarkData(seed=seed, input=data, kernels=tuple(made))
