"""The upstream source list derived from the pinned checkout (needs the sources: e2e)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hpx_tflm.source_list import derive_sources
from hpx_tflm_family import UPSTREAM_METHODS, methods_from_checkout

from hpx_core.contract import SourceSet

pytestmark = pytest.mark.e2e


def test_reference_list_matches_upstream_makefile_selection(tflm_sources: SourceSet) -> None:
    root = tflm_sources.path_of("tflite-micro")
    found = derive_sources(root, "reference")
    assert len(found.kernels) == 117
    assert found.count == 160
    assert "tensorflow/lite/array.cc" not in found.core
    assert "tensorflow/lite/micro/debug_log.cc" not in found.core
    assert not [f for f in found.core if f.endswith("_test.cc") or "benchmark" in f]
    assert all((root / f).is_file() for f in (*found.core, *found.kernels))


def test_cmsis_nn_specializes_kernels_and_adds_int8_sources(tflm_sources: SourceSet) -> None:
    root = tflm_sources.path_of("tflite-micro")
    nn = tflm_sources.path_of("CMSIS-NN")
    found = derive_sources(root, "cmsis_nn", nn)
    special = {Path(p).name for p in (root / "tensorflow/lite/micro/kernels/cmsis_nn").glob("*.cc")}
    for kernel in found.kernels:
        in_special = "/kernels/cmsis_nn/" in kernel
        assert in_special == (Path(kernel).name in special)
    assert len(found.kernels) == 117
    assert found.cmsis_nn and not [f for f in found.cmsis_nn if f.endswith(("_f16.c", "_f32.c"))]
    assert "Source/ConvolutionFunctions/arm_convolve_s8.c" in found.cmsis_nn


def test_committed_resolver_table_equals_the_pinned_header(tflm_sources: SourceSet) -> None:
    assert methods_from_checkout(tflm_sources.path_of("tflite-micro")) == UPSTREAM_METHODS
