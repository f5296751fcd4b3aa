"""The arm provider registers only a program's Cortex-M operators, in the program's own library;
the ns provider registers every one in the core."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hpx_executorch.core_units import CORTEX_M, cortex_m_files
from hpx_executorch.engine import runtime_options
from hpx_executorch.library import core_options, runtime_key
from hpx_executorch.runtime_cmake import RuntimeOptions, cortex_m_selection
from hpx_executorch.settings import Settings

from hpx_core.boards import get_board
from hpx_core.contract import SourceRepo, SourceSet

M55 = ("-mcpu=cortex-m55", "-mthumb")
TIER1 = ("cortex_m::quantized_conv2d.out", "cortex_m::minimum.out")
OPERATORS = """\
- func: cortex_m::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  variants: function
  kernels:
    - arg_meta: null
      kernel_name: cortex_m::minimum_out

- func: cortex_m::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
  variants: function
  kernels:
    - arg_meta: null
      kernel_name: cortex_m::maximum_out

- func: cortex_m::quantized_conv2d.out(Tensor input, *, Tensor(a!) out) -> Tensor(a!)
  variants: function
  kernels:
    - arg_meta: null
      kernel_name: cortex_m::quantized_conv2d_out
"""
KERNELS = {
    "op_minimum.cpp": "Tensor& minimum_out(Tensor& out) { return arm_minimum_s8(out); }\n",
    "op_maximum.cpp": "Tensor& maximum_out(Tensor& out) { return arm_maximum_s8(out); }\n",
    "op_quantized_conv2d.cpp": "Tensor& quantized_conv2d_out(Tensor& out) "
                               "{ return validate_conv(out); }\n",
    "cortex_m_ops_common.cpp": "Tensor& validate_conv(Tensor& out) { return out; }\n",
}


def test_only_the_selected_operators_kernel_files_and_what_they_call(tmp_path: Path) -> None:
    ops = tmp_path / "executorch" / CORTEX_M
    ops.mkdir(parents=True)
    (ops / "operators.yaml").write_text(OPERATORS, encoding="utf-8")
    for name, text in KERNELS.items():
        (ops / name).write_text(text, encoding="utf-8")
    files = cortex_m_files(tmp_path / "executorch", TIER1, sorted(ops.glob("*.cpp")))
    assert [p.name for p in files] == [
        "cortex_m_ops_common.cpp", "op_minimum.cpp", "op_quantized_conv2d.cpp"]
    assert cortex_m_files(tmp_path / "executorch", (), sorted(ops.glob("*.cpp"))) == []


def test_the_registration_moves_to_the_programs_library_only_when_selected() -> None:
    every = RuntimeOptions("ns", False, (), M55)
    assert "cortex_m_ops_lib" in every.core_targets() and every.operator_targets() == []
    chosen = RuntimeOptions("arm", False, ("aten::sub.out",), M55, TIER1)
    assert "cortex_m_ops_lib" not in chosen.core_targets()
    assert chosen.operator_targets() == [
        "cortex_m_ops_lib", "executorch_selected_kernels", "portable_kernels"]
    assert chosen.targets().index("cortex_m_ops_lib") == every.targets().index("cortex_m_ops_lib")
    none = RuntimeOptions("arm", False, (), M55, ())
    assert "cortex_m_ops_lib" not in none.targets() and none.operator_targets() == []


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None,
                    reason="the key names the compiler's version")
def test_programs_with_other_cortex_m_operators_share_the_core(tmp_path: Path) -> None:
    sources = SourceSet([SourceRepo(name, f"https://example.invalid/{name}", "1" * 40,
                                    tmp_path / name, "BSD-3-Clause")
                         for name in ("nsx-executorch", "executorch", "CMSIS-NN", "CMSIS_6")])
    conv = RuntimeOptions("arm", False, (), M55, TIER1)
    mul = RuntimeOptions("arm", False, (), M55, ("cortex_m::quantized_mul.out",))
    assert runtime_key(sources, core_options(conv)) == runtime_key(sources, core_options(mul))
    assert runtime_key(sources, conv) != runtime_key(sources, mul)
    every = RuntimeOptions("arm", False, (), M55)
    assert runtime_key(sources, core_options(every)) != runtime_key(sources, core_options(conv))


def test_the_project_wraps_the_selection_only_for_a_chosen_set() -> None:
    text = cortex_m_selection(TIER1)
    assert 'set(HPX_CORTEX_M_OPS "cortex_m::quantized_conv2d.out,cortex_m::minimum.out")' in text
    assert '_gen_selected_ops(LIB_NAME "cortex_m_ops_lib" ROOT_OPS "${HPX_CORTEX_M_OPS}")' in text
    assert "macro(include _hpx_file)" in text  # the backend includes Codegen.cmake right before
    assert cortex_m_selection(None) == cortex_m_selection(()) == ""


def _settings(backend: str) -> Settings:
    return Settings(backend=backend, ns_ops=False, portable_ops=(), planned_arena_size=16,
                    method_arena_size=16, temporary_arena_size=16, input_size=1,
                    output_size=1, cortex_m_ops=TIER1)


def test_arm_selects_and_ns_registers_every_operator() -> None:
    board = get_board("qemu-m55")
    assert runtime_options(_settings("arm"), board).cortex_m_ops == tuple(sorted(TIER1))
    assert runtime_options(_settings("ns"), board).cortex_m_ops is None
