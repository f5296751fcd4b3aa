"""The host reference: the same integer math as the kernels, in NumPy, for an exact check.

Accumulation is in int64, which equals the device's int32 accumulators because the reader
refuses depths that could overflow them (:data:`hpx_kernelbench.kernels.MAX_DEPTH`).
Requantization is TensorFlow Lite's: saturating rounding doubling high multiply, then a rounding
divide by a power of two, exactly as ``kb_requantize`` and Arm CMSIS-NN's ``arm_nn_requantize``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hpx_kernelbench.kernels import Conv2d, KernelCall, KernelList
from hpx_kernelbench.params import BenchmarkData, KernelParams

I64 = npt.NDArray[np.int64]
I8 = npt.NDArray[np.int8]


def _wrap32(values: I64) -> I64:
    """Two's complement int32 wrap-around (a left shift that overflows, as on the device)."""
    return ((values + 2**31) % 2**32) - 2**31


def saturating_rounding_doubling_high_mul(a: I64, b: I64) -> I64:
    """High 32 bits of 2*a*b rounded to nearest; both int32 values held in int64."""
    product = a * b
    nudge = np.where(product >= 0, 1 << 30, 1 - (1 << 30))
    total = product + nudge
    quotient = np.where(total >= 0, total // 2**31, -((-total) // 2**31))  # C truncation
    saturate = (a == -(2**31)) & (b == -(2**31))
    return np.where(saturate, 2**31 - 1, quotient).astype(np.int64)


def rounding_divide_by_pot(x: I64, exponent: I64) -> I64:
    """x / 2^exponent rounded to nearest, ties away from zero (gemmlowp's RoundingDivideByPOT)."""
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return ((x >> exponent) + (remainder > threshold)).astype(np.int64)


def requantize(values: I64, multiplier: I64, shift: I64) -> I64:
    """``kb_requantize`` element-wise (``multiplier``/``shift`` broadcast against ``values``)."""
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    scaled = _wrap32(values << left)
    return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(scaled, multiplier),
                                  right)


def _finish(acc: I64, p: KernelParams, low: int, high: int) -> I8:
    out = requantize(acc, p.multipliers.astype(np.int64), p.shifts.astype(np.int64))
    return np.clip(out + p.output_zero_point, low, high).astype(np.int8)


def conv2d(call: Conv2d, x: I8, p: KernelParams, low: int, high: int) -> I8:
    """NHWC input, OHWI filter, per-channel requantization; padding contributes zero."""
    batches, height, width, _ = call.input
    _, out_h, out_w, _ = call.output
    channels, k_h, k_w, _ = call.filter
    shifted = x.reshape(call.input).astype(np.int64) - p.input_zero_point
    pad_h = max((out_h - 1) * call.stride[0] + k_h - height, 0)
    pad_w = max((out_w - 1) * call.stride[1] + k_w - width, 0)
    before_h, before_w = call.pads
    padded = np.pad(shifted, ((0, 0), (before_h, pad_h - before_h),
                              (before_w, pad_w - before_w), (0, 0)))
    weights = p.weights.reshape(call.filter).astype(np.int64)
    acc = np.zeros((batches, out_h, out_w, channels), dtype=np.int64) + p.bias
    for ky in range(k_h):
        for kx in range(k_w):
            rows = padded[:, ky: ky + (out_h - 1) * call.stride[0] + 1: call.stride[0],
                          kx: kx + (out_w - 1) * call.stride[1] + 1: call.stride[1], :]
            acc += np.einsum("bhwi,oi->bhwo", rows, weights[:, ky, kx, :])
    return _finish(acc, p, low, high)


def fully_connected(depth: int, units: int, x: I8, p: KernelParams, low: int, high: int) -> I8:
    """``[units, depth]`` weights, per-tensor requantization."""
    rows = x.reshape(-1, depth).astype(np.int64) - p.input_zero_point
    weights = p.weights.reshape(units, depth).astype(np.int64)
    acc = rows @ weights.T + p.bias
    return _finish(acc, p, low, high)


def run_call(call: KernelCall, x: I8, p: KernelParams, low: int, high: int) -> I8:
    if isinstance(call, Conv2d):
        return conv2d(call, x, p, low, high)
    return fully_connected(call.depth, call.units, x, p, low, high)


def host_outputs(kernels: KernelList, data: BenchmarkData, low: int, high: int) -> tuple[I8, ...]:
    """Every call's output, in order, for the input of ``data``."""
    outputs: list[I8] = []
    x = data.input
    for call, params in zip(kernels.calls, data.kernels, strict=True):
        x = run_call(call, x, params, low, high).reshape(-1)
        outputs.append(x)
    return tuple(outputs)
