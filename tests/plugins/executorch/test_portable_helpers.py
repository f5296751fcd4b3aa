"""The portable kernels' helper files a program can link, found in a small tree laid out as
ExecuTorch's."""

from __future__ import annotations

from pathlib import Path

from hpx_executorch.core_units import portable_helpers

from hpx_core.contract import SourceRepo, SourceSet

CPU = "executorch/kernels/portable/cpu"
TREE = {
    f"{CPU}/op_sub.cpp": f"#include <{CPU}/util/broadcast_util.h>\n"
                         "Tensor& sub_out(Tensor& out) { return broadcast(out); }\n",
    f"{CPU}/op_abs.cpp": f"#include <{CPU}/pattern/pattern.h>\n"
                         "Tensor& abs_out(Tensor& out) { return unary_ufunc_realhbf16(out); }\n",
    f"{CPU}/util/broadcast_util.h": "Tensor& broadcast(Tensor& out);\n",
    f"{CPU}/util/broadcast_util.cpp": f"#include <{CPU}/util/broadcast_util.h>\n"
                                      "using Tensor = et::Tensor;\n"
                                      "Tensor& broadcast(Tensor& out) { return out; }\n",
    f"{CPU}/util/copy_ops_util.h": "bool check_cat_args(int n);\n",
    f"{CPU}/util/copy_ops_util.cpp": f"#include <{CPU}/util/copy_ops_util.h>\n"
                                     "using Tensor = et::Tensor;\n"
                                     "bool check_cat_args(int n) { return n > 0; }\n",
    f"{CPU}/util/reduce_util.h": "int reduce(int n);\n",
    f"{CPU}/util/reduce_util.cpp": f"#include <{CPU}/util/reduce_util.h>\n"
                                   "int reduce(int n) { return n; }\n",
    f"{CPU}/pattern/pattern.h": "Tensor& unary_ufunc_realhbf16(Tensor& out);\n",
    f"{CPU}/pattern/unary_ufunc_realhbf16.cpp": (
        f"#include <{CPU}/pattern/pattern.h>\n"
        "Tensor& unary_ufunc_realhbf16(Tensor& out) { return out; }\n"),
    "executorch/backends/cortex_m/ops/op_add.cpp": f"#include <{CPU}/util/reduce_util.h>\n"
                                                   "int add(int n) { return reduce(n); }\n",
}


def _sources(root: Path) -> SourceSet:
    for rel, text in TREE.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "nsx").mkdir()
    (root / "nsx" / "CMakeLists.txt").write_text("# forces no header in\n", encoding="utf-8")
    return SourceSet([
        SourceRepo("executorch", "https://example.invalid/executorch", "1" * 40,
                   root / "executorch", "BSD-3-Clause"),
        SourceRepo("nsx-executorch", "https://example.invalid/nsx", "2" * 40, root / "nsx",
                   "Apache-2.0")])


def test_the_operators_helpers_are_kept_and_the_rest_left_out(tmp_path: Path) -> None:
    sources = _sources(tmp_path)
    assert portable_helpers([], sources, ["aten::sub.out"]) == ("util/broadcast_util.cpp",)


def test_a_pattern_is_kept_by_the_name_an_operator_calls(tmp_path: Path) -> None:
    sources = _sources(tmp_path)
    assert portable_helpers([], sources, ["aten::abs.out"]) == (
        "pattern/unary_ufunc_realhbf16.cpp",)


def test_what_the_cores_units_include_is_kept_too(tmp_path: Path) -> None:
    sources = _sources(tmp_path)
    chosen = ["@executorch@/backends/cortex_m/ops/op_add.cpp"]
    assert portable_helpers(chosen, sources, ["aten::sub.out"]) == (
        "util/broadcast_util.cpp", "util/reduce_util.cpp")
