"""What C sources define and use, read token by token: the kernel files a program calls into.

A C kernel library such as CMSIS-NN (or flatcc's runtime) is one function (or a few) per file,
called by name. The
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
    """The names a file defines at file scope for other files (functions with a body,
    initialized or sized data; not ``static`` ones, which no other file can call, nor C++
    type aliases) and every name it uses."""

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


def _opens_scope(tokens: list[str], at: int) -> bool:
    """The ``{`` at ``at`` opens a namespace or an ``extern "C"`` block: what it holds is at
    file scope for the linker."""
    start = at - 1
    while start >= 0 and tokens[start] not in (";", "{", "}", ")", "="):
        start -= 1
    return start + 1 < at and tokens[start + 1] in ("namespace", "extern")


def _is_static(tokens: list[str], at: int) -> bool:
    """The declaration holding the name at ``at`` says ``static``: its name is the file's own."""
    start = at - 1
    while start >= 0 and tokens[start] not in (";", "{", "}"):
        if tokens[start] == "static":
            return True
        start -= 1
    return False


def scan(text: str) -> Symbols:
    """The :class:`Symbols` of one C or C++ source text (C++ namespaces are file scope)."""
    tokens = _tokens(text)
    defines: set[str] = set()
    uses: set[str] = set()
    braces = parens = 0
    scopes: list[bool] = []  # each open brace: does it count as a level
    for index, token in enumerate(tokens):
        if token == "{":
            scopes.append(not _opens_scope(tokens, index))
            braces += scopes[-1]
        elif token == "}" and scopes:
            braces -= scopes.pop()
        parens += {"(": 1, ")": -1}.get(token, 0)
        if not (token[0].isalpha() or token[0] == "_"):
            continue
        uses.add(token)
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if braces == 0 and parens == 0 and (
                following in ("[", "=") or (following == "(" and _body_follows(tokens, index + 1))
        ) and not _is_static(tokens, index) and tokens[index - 1:index] != ["using"]:
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
