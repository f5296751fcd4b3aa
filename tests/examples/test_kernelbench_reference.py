"""The host reference's integer math against hand-computed values (and, when a host C compiler
is there, against the pinned C kernels themselves)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hpx_kernelbench")

from hpx_kernelbench.kernels import Conv2d, FullyConnected
from hpx_kernelbench.params import KernelParams, base_shift, benchmark_data
from hpx_kernelbench.reference import (
    conv2d,
    fully_connected,
    requantize,
    rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
)

HALF = 1 << 30  # a multiplier of 0.5
I32_MIN, I32_MAX = -(2**31), 2**31 - 1


def _a(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_doubling_high_multiply_rounds_ties_upward_and_saturates() -> None:
    got = saturating_rounding_doubling_high_mul(
        _a(HALF, -HALF, 3, -3, 5, I32_MIN), _a(HALF, HALF, HALF, HALF, HALF, I32_MIN))
    # 2^30 * 2^30 * 2 / 2^32 = 2^29; 3 * 0.5 = 1.5 -> 2; -1.5 -> -1; 2.5 -> 3
    assert got.tolist() == [2**29, -(2**29), 2, -1, 3, I32_MAX]


def test_divide_by_power_of_two_rounds_ties_away_from_zero() -> None:
    got = rounding_divide_by_pot(_a(5, -5, 4, -3, 7, -7, 6, -6, 9), _a(1, 1, 1, 1, 2, 2, 2, 2, 0))
    assert got.tolist() == [3, -3, 2, -2, 2, -2, 2, -2, 9]


def test_requantize_rounds_twice_like_tflite() -> None:
    # 1000 * 0.5 / 2 = 250; 1001: 500.5 -> 501, then 250.5 -> 251 (the real value is 250.25)
    got = requantize(_a(1000, 1001, -1001, 3), _a(HALF, HALF, HALF, HALF), _a(-1, -1, -1, 2))
    assert got.tolist() == [250, 251, -250, 6]


def _params(weights: list[int], bias: list[int], mult: list[int], shift: list[int],
            zp_in: int = 0, zp_out: int = 0) -> KernelParams:
    return KernelParams(np.array(weights, np.int8), np.array(bias, np.int32),
                        np.array(mult, np.int32), np.array(shift, np.int32), zp_in, zp_out)


def test_conv2d_valid_and_same_by_hand() -> None:
    x = np.array([1, 2, 3, 4], np.int8)  # 2x2, one channel
    p = _params([1, 1, 1, 1], [5], [HALF], [0], zp_in=-1, zp_out=1)
    valid = Conv2d("c", (1, 2, 2, 1), (1, 2, 2, 1), (1, 1), "valid", (0, 0), (1, 1, 1, 1))
    # (1+1)+(2+1)+(3+1)+(4+1) + 5 = 19; 19 * 0.5 = 9.5 -> 10; + 1
    assert conv2d(valid, x, p, -128, 127).tolist() == [[[[11]]]]
    same = Conv2d("c", (1, 2, 2, 1), (1, 2, 2, 1), (1, 1), "same", (0, 0), (1, 2, 2, 1))
    # the padding row and column go after the input and add nothing
    sums = [19, 3 + 5 + 5, 4 + 5 + 5, 5 + 5]
    assert conv2d(same, x, p, -128, 127).ravel().tolist() == [(s + 1) // 2 + 1 for s in sums]


def test_fully_connected_by_hand_with_a_clamp() -> None:
    x = np.array([1, -2, 3], np.int8)
    p = _params([1, 1, 1, 2, 0, -1], [0, 10], [I32_MAX], [0])
    # [1 - 2 + 3, 2 - 3 + 10] = [2, 9]; a multiplier of ~1.0 keeps them; clamp at 5
    assert fully_connected(3, 2, x, p, -128, 127).ravel().tolist() == [2, 9]
    assert fully_connected(3, 2, x, p, -128, 5).ravel().tolist() == [2, 5]


def test_the_seed_decides_every_byte() -> None:
    from hpx_kernelbench.model import read_kernels

    path = Path(__file__).resolve().parents[2] / "examples/engines/kernelbench/kernels.yaml"
    kernels = read_kernels(path, path.read_bytes())
    one, again, other = (benchmark_data(kernels, s) for s in (0, 0, 1))
    assert one.input.tobytes() == again.input.tobytes() != other.input.tobytes()
    assert all(k.weights.min() >= -127 for k in one.kernels)
    assert all((1 << 30) <= m < (1 << 31) for k in one.kernels for m in k.multipliers.tolist())
    assert base_shift(72) == -10  # 32 / (74 * 73 * sqrt(72)) = 6.9e-4 = 0.71 * 2^-10
    assert one.kernels[1].input_zero_point == one.kernels[0].output_zero_point


def test_fully_connected_reads_its_input_flattened() -> None:
    call = FullyConnected("f", (1, 2, 2, 1), 1)
    assert call.depth == 4 and call.output == (1, 1)
