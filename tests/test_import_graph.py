"""The packages' import graphs have no cycles, and the core names no engine it ships.

Every import counts, including those under ``TYPE_CHECKING`` and inside functions: a lazy import
hides a cycle from Python, not from a reader. An edge goes to the module named (``from a.b
import c`` reaches ``a.b.c`` when that is a module, else ``a.b``), not to its parent packages.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = [REPO / "hpx_core", *sorted(REPO.glob("plugins/hpx_*/hpx_*"))]
SHIPPED_ENGINES = ("tflm", "helia-rt", "helia_rt", "heliart", "helia-aot", "helia_aot",
                   "heliaaot", "executorch")
# The core reads the .pte format, which is ExecuTorch's: words about that file format are not
# an engine's name (any other mention of a shipped engine is).
FORMAT_PHRASES = ("executorch program", "executorch .pte", "executorch et12",
                  "executorch's to_executorch", "to_executorch")


def modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path) -> Iterator[str]:
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package[: len(package) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("root", PACKAGES, ids=lambda p: p.name)
def test_no_import_cycles(root: Path) -> None:
    known = modules(root)
    graph = {name: {m for m in imports(name, path) if m in known and m != name}
             for name, path in known.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def code_words(path: Path) -> Iterator[str]:
    """String literals and names of a module: its code, not its comments or docstrings."""
    tokens = list(tokenize.generate_tokens(io.StringIO(path.read_text("utf-8")).readline))
    docstrings = {n.body[0].value.lineno for n in ast.walk(ast.parse(path.read_text("utf-8")))
                  if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef)
                  and n.body and isinstance(n.body[0], ast.Expr)
                  and isinstance(n.body[0].value, ast.Constant)}
    for token in tokens:
        if token.type == tokenize.NAME or (token.type == tokenize.STRING
                                           and token.start[0] not in docstrings):
            yield token.string.lower()


def _without_format_words(word: str) -> str:
    for phrase in FORMAT_PHRASES:
        word = word.replace(phrase, "")
    return word


def test_the_core_names_no_engine_it_ships() -> None:
    offenders = []
    for path in sorted((REPO / "hpx_core").rglob("*")):
        relative = path.relative_to(REPO).as_posix()
        if not path.is_file():
            continue
        if path.suffix == ".py":
            words = [_without_format_words(word) for word in code_words(path)]
        elif path.suffix in (".toml", ".json", ".yaml"):
            words = [line.split("#")[0].lower() for line in path.read_text("utf-8").splitlines()]
        else:
            continue
        offenders += [f"{relative}: {name}" for name in SHIPPED_ENGINES
                      if any(name in word for word in words)]
    assert offenders == []
