"""The runtime split: one core per pins and flags, one small library per portable-operator set,
linked in the order of one whole build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hpx_executorch.library import _link_order, _whole, core_options, runtime_key
from hpx_executorch.runtime_cmake import RuntimeOptions

from hpx_core.contract import SourceRepo, SourceSet
from hpx_core.sdk.enginelib import CachedFolder

M55 = ("-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb")
pytestmark = pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None,
                                reason="the key names the compiler's version")


def _sources(root: Path) -> SourceSet:
    return SourceSet([SourceRepo(name, f"https://example.invalid/{name}", "1" * 40,
                                 root / name, "BSD-3-Clause")
                      for name in ("nsx-executorch", "executorch", "CMSIS-NN", "CMSIS_6")])


def test_the_core_key_ignores_the_operator_set_and_the_folder(tmp_path: Path) -> None:
    tier1 = RuntimeOptions("arm", False, ("aten::sub.out", "aten::clamp.out"), M55)
    mean = RuntimeOptions("arm", False, ("aten::mean.out",), M55)
    here, there = _sources(tmp_path / "a"), _sources(tmp_path / "b")
    assert runtime_key(here, core_options(tier1)) == runtime_key(there, core_options(mean))
    assert runtime_key(here, tier1) != runtime_key(here, mean)
    m4 = RuntimeOptions("arm", False, (), ("-mcpu=cortex-m4", "-mthumb"))
    assert runtime_key(here, core_options(m4)) != runtime_key(here, core_options(tier1))


def test_parts_link_in_the_order_of_one_whole_build(tmp_path: Path) -> None:
    options = RuntimeOptions("arm", False, ("aten::sub.out",), M55)
    core = CachedFolder(tmp_path / "core", {"archives": [
        "libexecutorch_core.a", "libexecutorch.a", "libextension_data_loader.a",
        "libcortex_m_kernels.a", "libcortex_m_ops_lib.a", "libcmsis-nn.a", "libetdump.a",
        "libflatccrt.a"]},
        built=False, seconds=0.0)
    ops = CachedFolder(tmp_path / "ops", {"archives": [
        "libexecutorch_selected_kernels.a", "libportable_kernels.a",
        "libkernels_util_all_deps.a"]}, built=True, seconds=1.0)
    order = _link_order(options, [_whole("core", "k1", core), _whole("ops", "k2", ops)])
    assert [p.name for p in order] == [
        "libexecutorch_core.a", "libexecutorch.a", "libextension_data_loader.a",
        "libcortex_m_kernels.a", "libcortex_m_ops_lib.a", "libcmsis-nn.a", "libetdump.a",
        "libflatccrt.a", "libexecutorch_selected_kernels.a", "libportable_kernels.a",
        "libkernels_util_all_deps.a"]
    assert order[8].parent == tmp_path / "ops" / "lib"
    assert order[0].parent == tmp_path / "core" / "lib"


def test_with_the_core_as_units_the_helpers_come_from_the_units(tmp_path: Path) -> None:
    options = RuntimeOptions("arm", False, ("aten::sub.out",), M55)
    units = CachedFolder(tmp_path / "units", {"archives": [
        "libexecutorch_core.a", "libexecutorch.a", "libkernels_util_all_deps.a"]},
        built=False, seconds=0.0)
    ops = CachedFolder(tmp_path / "ops", {"archives": [
        "libexecutorch_selected_kernels.a", "libportable_kernels.a",
        "libkernels_util_all_deps.a"]}, built=False, seconds=0.0)
    parts = [_whole("core", "k1", units),
             _whole("ops", "k2", ops, only=["libexecutorch_selected_kernels.a",
                                             "libportable_kernels.a"])]
    order = _link_order(options, parts)
    assert [p.name for p in order][-1] == "libkernels_util_all_deps.a"
    assert order[-1].parent == tmp_path / "units" / "lib"
