"""Helpers found from the sources: includes followed, headers' implementers taken."""

from __future__ import annotations

from pathlib import Path

from hpx_core.sdk.enginelib.include_graph import IncludeGraph, closure, implements


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_implementers_follow_the_include_chain(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "k/conv.cc": '#include "k/conv.h"\n#include <stdint.h>\n',
        "k/conv.h": '#include "k/util.h"\n',
        "k/conv_common.cc": '#include "k/conv.h"\n',
        "k/util.h": "",
        "k/util.cc": '#include "k/util.h"\n',
        "k/add.cc": '#include "k/add.h"\n#include "k/util.h"\n',
        "k/add.h": "",
        "k/add_n.cc": '#include "k/util.h"\n',  # named like add.h, but does not include it
    })
    graph = IncludeGraph([tmp_path])
    every = sorted((tmp_path / "k").glob("*.cc"))
    taken = closure(graph, [tmp_path / "k/conv.cc"], every)
    assert {p.name for p in taken} == {"conv.cc", "conv_common.cc", "util.cc"}
    assert {p.name for p in closure(graph, [tmp_path / "k/add.cc"], every)} == {
        "add.cc", "util.cc"}


def test_a_refused_header_is_neither_followed_nor_implemented(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "api.h": '#include "kernels/conv.h"\n#include "alloc.h"\n',
        "alloc.h": "", "alloc.cc": '#include "alloc.h"\n',
        "kernels/conv.h": '#include "kernels/helper.h"\n',
        "kernels/conv.cc": '#include "kernels/conv.h"\n',
        "kernels/helper.h": "", "kernels/helper.cc": '#include "kernels/helper.h"\n',
    })
    graph = IncludeGraph([tmp_path])
    every = sorted(tmp_path.rglob("*.cc"))
    taken = closure(graph, [tmp_path / "api.h"], every,
                    descend=lambda h: "kernels" not in h.parts)
    assert {p.name for p in taken} == {"alloc.cc"}
    assert len(closure(graph, [tmp_path / "api.h"], every)) == 3


def test_includes_resolve_beside_the_file_then_in_the_include_folders(tmp_path: Path) -> None:
    _tree(tmp_path, {"src/a.cc": ('#include "a.h"\n#include "b.h"\n#include "none.h"\n'
                                  "#include <c.h>\n#include <stdint.h>\n"),
                     "src/a.h": "", "inc/b.h": "", "src/b.h": "", "src/c.h": "", "inc/c.h": ""})
    graph = IncludeGraph([tmp_path / "inc"])
    assert graph.includes(tmp_path / "src/a.cc") == (
        tmp_path / "src/a.h", tmp_path / "src/b.h", tmp_path / "inc/c.h")  # <> not beside
    assert implements(Path("x/conv_common.cc"), Path("y/conv.h"))
    assert not implements(Path("x/concat.cc"), Path("y/conv.h"))
