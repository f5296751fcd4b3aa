"""The pinned C kernels, compiled for the host, agree with the NumPy reference bit for bit.

The device run checks the same thing end to end; this finds a disagreement in seconds and
points at the function. Skipped without a host C compiler.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hpx_kernelbench")

from hpx_kernelbench.kernels import Conv2d, FullyConnected
from hpx_kernelbench.model import read_kernels
from hpx_kernelbench.params import benchmark_data
from hpx_kernelbench.reference import host_outputs, requantize

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "kernelbench"
I32 = ctypes.c_int32


class Dims(ctypes.Structure):
    _fields_ = [("n", I32), ("h", I32), ("w", I32), ("c", I32)]


class ConvParams(ctypes.Structure):
    _fields_ = [(name, I32) for name in (
        "stride_h", "stride_w", "pad_h", "pad_w", "input_offset", "output_offset", "act_min",
        "act_max")]


class FcParams(ctypes.Structure):
    _fields_ = [(name, I32) for name in (
        "input_offset", "output_offset", "act_min", "act_max", "multiplier", "shift")]


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a host C compiler")
    kernels = EXAMPLE / "kernels"
    library = tmp_path_factory.mktemp("kb") / "libkb.so"
    subprocess.run([compiler, "-std=c11", "-O2", "-Wall", "-Werror", "-shared", "-fPIC",
                    f"-I{kernels / 'include'}", *map(str, sorted(kernels.glob("src/*.c"))),
                    "-o", str(library)], check=True)
    lib = ctypes.CDLL(str(library))
    lib.kb_requantize.restype = I32
    lib.kb_requantize.argtypes = [I32, I32, I32]
    return lib


def _ptr(array: np.ndarray, kind: type[ctypes._SimpleCData]) -> ctypes._Pointer:  # type: ignore[type-arg]
    return array.ctypes.data_as(ctypes.POINTER(kind))


def test_requantize_matches_on_random_values(kb: ctypes.CDLL) -> None:
    rng = np.random.default_rng(5)
    values = rng.integers(-(2**31), 2**31, 4000, dtype=np.int64)
    multipliers = rng.integers(1 << 30, 1 << 31, 4000, dtype=np.int64)
    shifts = rng.integers(-31, 1, 4000, dtype=np.int64)
    want = requantize(values, multipliers, shifts)
    got = [kb.kb_requantize(int(v), int(m), int(s))
           for v, m, s in zip(values, multipliers, shifts, strict=True)]
    assert got == want.tolist()


@pytest.mark.parametrize(("seed", "low", "high"), [(0, -128, 127), (3, -20, 90)])
def test_every_call_of_the_example_matches(kb: ctypes.CDLL, seed: int, low: int,
                                           high: int) -> None:
    path = EXAMPLE / "kernels.yaml"
    kernels = read_kernels(path, path.read_bytes())
    data = benchmark_data(kernels, seed)
    expected = host_outputs(kernels, data, low, high)
    x = data.input
    for call, p, want in zip(kernels.calls, data.kernels, expected, strict=True):
        out = np.zeros(len(want), np.int8)
        if isinstance(call, Conv2d):
            params = ConvParams(*call.stride, *call.pads, -p.input_zero_point,
                                p.output_zero_point, low, high)
            rc = kb.kb_conv2d_s8(
                ctypes.byref(params), _ptr(p.multipliers, I32), _ptr(p.shifts, I32),
                ctypes.byref(Dims(*call.input)), _ptr(x, ctypes.c_int8),
                ctypes.byref(Dims(*call.filter)), _ptr(p.weights, ctypes.c_int8),
                _ptr(p.bias, I32), ctypes.byref(Dims(*call.output)),
                _ptr(out, ctypes.c_int8))
        else:
            assert isinstance(call, FullyConnected)
            fc = FcParams(-p.input_zero_point, p.output_zero_point, low, high,
                          int(p.multipliers[0]), int(p.shifts[0]))
            rc = kb.kb_fully_connected_s8(
                ctypes.byref(fc), call.input[0], call.depth, call.units, _ptr(x, ctypes.c_int8),
                _ptr(p.weights, ctypes.c_int8), _ptr(p.bias, I32), _ptr(out, ctypes.c_int8))
        assert rc == 0
        assert out.tolist() == want.tolist(), call.name
        x = out
