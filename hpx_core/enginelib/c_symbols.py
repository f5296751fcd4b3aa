"""What C sources define and use, read token by token: the kernel files a program calls into.

A C kernel library such as CMSIS-NN is one function (or a few) per file, called by name. The
files a set of callers needs are those defining a name the callers use, then those defining a
name those files use, until nothing is added. Names are read after comments, strings and
preprocessor lines are dropped; every ``#if`` branch counts, so a file used only on another CPU
may be taken (compiled, never linked), but a file the link needs is never left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

_TOKEN = re.compile(
    r"//[^\n]*|/\*.*?\*/"  # comments
    r"|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"  # strings and characters
    r"|^[ \t]*#(?:[^\n]*\\\n)*[^\n]*"  # preprocessor lines, continued ones too
    r"|([A-Za-z_]\w*)|([{}()\[\];=])",
    re.DOTALL | re.MULTILINE,
)


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen
class Symbols:
    """The names a file defines at file scope (functions with a body, initialized or sized
    data) and every name it uses."""

    defines: frozenset[str] = attrs.field(converter=_names)
    uses: frozenset[str] = attrs.field(converter=_names)


def _tokens(text: str) -> list[str]:
    return [m[1] or m[2] for m in _TOKEN.finditer(text) if m[1] or m[2]]


def _body_follows(tokens: list[str], at: int) -> bool:
    """The parenthesis opening at ``at`` closes before a ``{``: a definition, not a call or a
    declaration."""
    depth = 0
    for index in range(at, len(tokens)):
        if tokens[index] == "(":
            depth += 1
        elif tokens[index] == ")":
            depth -= 1
            if depth == 0:
                return index + 1 < len(tokens) and tokens[index + 1] == "{"
    return False


def scan(text: str) -> Symbols:
    """The :class:`Symbols` of one C or C++ source text."""
    tokens = _tokens(text)
    defines: set[str] = set()
    uses: set[str] = set()
    braces = parens = 0
    for index, token in enumerate(tokens):
        braces += {"{": 1, "}": -1}.get(token, 0)
        parens += {"(": 1, ")": -1}.get(token, 0)
        if not (token[0].isalpha() or token[0] == "_"):
            continue
        uses.add(token)
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if braces == 0 and parens == 0 and (
                following in ("[", "=") or (following == "(" and _body_follows(tokens, index + 1))):
            defines.add(token)
    return Symbols(defines, uses)


def scan_files(paths: Iterable[Path]) -> dict[Path, Symbols]:
    """:func:`scan` of each file."""
    return {path: scan(path.read_text(encoding="utf-8", errors="replace")) for path in paths}


def needed(uses: Iterable[str], files: Mapping[Path, Symbols]) -> set[Path]:
    """The ``files`` that define a name in ``uses`` or a name a file taken uses, transitively."""
    where: dict[str, list[Path]] = {}
    for path, symbols in files.items():
        for name in symbols.defines:
            where.setdefault(name, []).append(path)
    taken: set[Path] = set()
    todo = set(uses)
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        seen.add(name)
        for path in where.get(name, ()):
            if path not in taken:
                taken.add(path)
                todo |= files[path].uses - seen
    return taken
