"""C files a caller needs, read token by token."""

from __future__ import annotations

from pathlib import Path

from hpx_core.sdk.enginelib.c_symbols import needed, scan, scan_files

SOURCE = """
#include "x.h"
#define CALL(x) not_a_definition(x)
static const int table[4] = {1, 2, 3, 4};
int shared_count = 0;
/* int commented(void) { return 1; } */
int arm_add_s8(const int *a,
               int n) {
    const char *s = "arm_in_string(";
    return helper(a[0], n) + table[0];
}
int declared_only(int x);
"""


def test_definitions_are_bodies_and_initialized_data_at_file_scope() -> None:
    found = scan(SOURCE)
    assert found.defines == {"shared_count", "arm_add_s8"}  # table is static
    assert "helper" in found.uses and "declared_only" in found.uses
    assert "commented" not in found.uses and "arm_in_string" not in found.uses
    assert "not_a_definition" not in found.uses  # preprocessor lines are dropped


def test_needed_follows_calls_through_files(tmp_path: Path) -> None:
    files = {"wrapper.c": "int wrap(void) { return conv(); }\n",
             "conv.c": "int conv(void) { return kernel() + table[0]; }\n",
             "kernel.c": "int kernel(void) { return 2; }\n",
             "tables.c": "const int table[1] = {3};\n",
             "other.c": "int other(void) { return kernel(); }\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    index = scan_files(sorted(tmp_path.glob("*.c")))
    assert {p.name for p in needed({"wrap"}, index)} == {"wrapper.c", "conv.c", "kernel.c",
                                                         "tables.c"}
    assert needed({"nothing"}, index) == set()


def test_namespaces_and_extern_c_blocks_are_file_scope() -> None:
    found = scan("""
namespace et { namespace native::ops {
Tensor& quantize_out(Ctx& context, const Tensor& in) { return helper(in); }
}  // namespace native::ops
}  // namespace et
extern "C" { int c_entry(void) { return 1; } }
struct Kernel { int member(int x) { return x; } };
using Tensor = et::Tensor;
""")
    assert found.defines == {"quantize_out", "c_entry"}
    assert {"helper", "member"} <= found.uses


def test_a_static_definition_answers_no_other_files_call(tmp_path: Path) -> None:
    files = {"builder.c": "int build(void) { return check_header(); }\n"
                          "static int check_header(void) { return 1; }\n",
             "verifier.c": "static int check_header(void) { return 2; }\n"
                           "static const int\nlimits[2] = {1, 2};\n"
                           "int verify(void) { return check_header() + limits[0]; }\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    index = scan_files(sorted(tmp_path.glob("*.c")))
    assert index[tmp_path / "verifier.c"].defines == {"verify"}
    assert {p.name for p in needed({"build"}, index)} == {"builder.c"}
