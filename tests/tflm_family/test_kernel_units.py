"""The units a TFLite Micro program needs, found in a small tree laid out as TFLM's."""

from __future__ import annotations

from pathlib import Path

import pytest
from hpx_tflm_family.kernel_units import needed_sources, registrations, runner_headers

from hpx_core.errors import BuildError, ModelError

MICRO = "tensorflow/lite/micro"
RESOLVER = """
class MicroMutableOpResolver {
  TfLiteStatus AddConv2D(
      const TFLMRegistration& registration = Register_CONV_2D()) {
    return AddBuiltin(BuiltinOperator_CONV_2D, registration, ParseConv2D);
  }
  TfLiteStatus AddAdd(const TFLMRegistration& registration = Register_ADD()) {
    if (true) { return kTfLiteOk; }
    return AddBuiltin(BuiltinOperator_ADD, registration, ParseAdd);
  }
  TfLiteStatus AddLost() {
    return AddBuiltin(BuiltinOperator_LOST, tflite::Register_LOST(), ParseLost);
  }
};
"""
TREE = {
    f"{MICRO}/micro_mutable_op_resolver.h": f'#include "{MICRO}/kernels/conv.h"\n' + RESOLVER,
    f"{MICRO}/micro_interpreter.h": f'#include "{MICRO}/micro_allocator.h"\n',
    f"{MICRO}/micro_interpreter.cc": f'#include "{MICRO}/micro_interpreter.h"\n',
    f"{MICRO}/micro_allocator.h": "",
    f"{MICRO}/micro_allocator.cc": f'#include "{MICRO}/micro_allocator.h"\n',
    f"{MICRO}/test_helpers.cc": f'#include "{MICRO}/test_helpers.h"\n',
    f"{MICRO}/test_helpers.h": "",
    f"{MICRO}/kernels/conv.h": f'#include "{MICRO}/kernels/kernel_util.h"\n',
    f"{MICRO}/kernels/conv.cc": (f'#include "{MICRO}/kernels/conv.h"\n'
                                 "TFLMRegistration Register_CONV_2D() { return arm_conv_s8(); }\n"),
    f"{MICRO}/kernels/conv_common.cc": f'#include "{MICRO}/kernels/conv.h"\n',
    f"{MICRO}/kernels/add.cc": "TFLMRegistration Register_ADD() { return {}; }\n",
    f"{MICRO}/kernels/kernel_util.h": "",
    f"{MICRO}/kernels/kernel_util.cc": f'#include "{MICRO}/kernels/kernel_util.h"\n',
    "nn/arm_conv_s8.c": "int arm_conv_s8(void) { return arm_nn_mat(); }\n",
    "nn/arm_nn_mat.c": "int arm_nn_mat(void) { return 1; }\n",
    "nn/arm_add_s8.c": "int arm_add_s8(void) { return 2; }\n",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name, text in TREE.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def _sources(root: Path) -> list[str]:
    return sorted(p.as_posix() for p in root.rglob("*") if p.suffix in (".cc", ".c"))


def _names(found: set[str], root: Path) -> set[str]:
    return {Path(p).relative_to(root).as_posix().removeprefix(f"{MICRO}/") for p in found}


def test_the_interpreter_and_the_operators_kernels_with_their_helpers(tree: Path) -> None:
    found = needed_sources(_sources(tree), tree, {"CONV_2D"}, ())
    assert _names(found, tree) == {
        "micro_interpreter.cc", "micro_allocator.cc", "kernels/conv.cc",
        "kernels/conv_common.cc", "kernels/kernel_util.cc", "nn/arm_conv_s8.c",
        "nn/arm_nn_mat.c"}


def test_without_operators_only_the_interpreter(tree: Path) -> None:
    found = needed_sources(_sources(tree), tree, set(), ())
    assert _names(found, tree) == {"micro_interpreter.cc", "micro_allocator.cc"}


def test_registrations_come_from_the_resolver_methods(tree: Path) -> None:
    assert registrations(tree, {"CONV_2D", "ADD"}) == {"Register_CONV_2D", "Register_ADD"}
    with pytest.raises(ModelError, match="SQUARE has no builtin kernel"):
        registrations(tree, {"SQUARE"})
    with pytest.raises(BuildError, match="defines Register_LOST"):
        needed_sources(_sources(tree), tree, {"LOST"}, ())


def test_the_runner_includes_the_interpreter(tree: Path) -> None:
    assert tree / MICRO / "micro_interpreter.h" in runner_headers(tree)
