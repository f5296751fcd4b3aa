"""The generated glue: the model table and constants as C, per backend, and what it plans."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("hpx_kernelbench")

from hpx_kernelbench.glue import c_array, make_glue, scratch_bound
from hpx_kernelbench.kernels import KernelList
from hpx_kernelbench.model import read_kernels
from hpx_kernelbench.params import BenchmarkData, benchmark_data

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "kernelbench"


@pytest.fixture(scope="module")
def bench() -> tuple[KernelList, BenchmarkData]:
    path = EXAMPLE / "kernels.yaml"
    kernels = read_kernels(path, path.read_bytes())
    return kernels, benchmark_data(kernels, 11)


def _array(source: str, name: str) -> list[int]:
    found = re.search(rf"{name}\[(\d+)\][^=]*= \{{(.*?)\}};", source, re.S)
    assert found is not None, name
    values = [int(v) for v in found.group(2).replace("\n", " ").split(",")]
    assert len(values) == int(found.group(1))
    return values


def test_c_arrays_are_aligned_and_complete() -> None:
    text = c_array("int8_t", "x", range(-3, 42), align=16)
    assert text.startswith("const int8_t x[45] __attribute__((aligned(16))) = {")
    assert _array(text, "x") == list(range(-3, 42))


def test_portable_glue_carries_the_exact_bytes(bench: tuple[KernelList, BenchmarkData]) -> None:
    kernels, data = bench
    glue = make_glue(kernels, data, "portable", -128, 127)
    assert glue.sources == ("kb_engine.c", "kb_backend_portable.c", "kb_model.c")
    assert set(glue.files) == {"kb_model.h", "kb_backend.h", "kb_engine.c",
                               "kb_backend_portable.c", "kb_model.c"}
    assert glue.defines == {}
    source = glue.files["kb_model.c"]
    assert _array(source, "kb_input") == data.input.tolist()
    weights = _array(source, "kb_weights")
    at = 0
    for params in data.kernels:  # each call's weights start on a 16-byte boundary
        assert weights[at: at + len(params.weights)] == params.weights.tolist()
        at += -(-len(params.weights) // 16) * 16
    quant = _array(source, "kb_quant")
    first = data.kernels[0]
    assert quant[:16] == first.bias.tolist() and quant[16:32] == first.multipliers.tolist()
    for name in kernels.names:
        assert f'"{name}"' in source
    assert "kb_sums" not in source and "kb_scratch" not in source
    activations, weight_buffer = glue.buffers
    assert activations.symbol == "kb_activations" and activations.size == 2 * 16 * 16 * 16
    assert weight_buffer.symbol == "kb_weights" and weight_buffer.size == len(weights)


@pytest.mark.parametrize("backend", ["cmsis_nn", "ns"])
def test_cmsis_glue_adds_sums_and_scratch(bench: tuple[KernelList, BenchmarkData],
                                          backend: str) -> None:
    kernels, data = bench
    glue = make_glue(kernels, data, backend, -128, 127)
    assert glue.sources[1] == "kb_backend_cmsis.c"
    assert glue.defines == ({"KB_NS_CMSIS_NN": "1"} if backend == "ns" else {})
    source = glue.files["kb_model.c"]
    assert "int32_t kb_sums[90]" in source  # 16 + 32 + 32 + 10 output channels
    assert f"int8_t kb_scratch[{scratch_bound(kernels)}]" in source
    # 3x3x16 columns with MVE: 4 * ceil(144 / 16) * 16 = 576 bytes; the bound covers it
    assert scratch_bound(kernels) >= 576


def test_the_generated_model_compiles(bench: tuple[KernelList, BenchmarkData],
                                      tmp_path: Path) -> None:
    compiler = shutil.which("arm-none-eabi-gcc")
    if compiler is None:
        pytest.skip("needs arm-none-eabi-gcc")
    kernels, data = bench
    for backend in ("portable", "ns"):
        glue = make_glue(kernels, data, backend, -100, 100)
        for name, text in glue.files.items():
            (tmp_path / name).write_text(text)
        subprocess.run([compiler, "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                        "-mcpu=cortex-m55", "-mthumb", f"-I{tmp_path}",
                        str(tmp_path / "kb_model.c")], check=True)
    assert np.int8(data.input[0]) == data.input[0]
