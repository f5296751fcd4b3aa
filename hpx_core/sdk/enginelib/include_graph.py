"""The sources that implement the headers a set of files includes, read from the sources.

Engine libraries written in C and C++ commonly keep one convention:
what a header ``x.h`` declares is defined in a source that includes it and is named after it
(``x.cc``, ``x_common.cc``). Following a file's includes, transitively, and taking for each header
reached the sources that implement it finds the helpers the file needs without compiling
anything and without a table kept by hand. A helper this misses is an undefined symbol at the
link, never a silent difference; one it takes needlessly is a unit compiled and never linked.
"""

from __future__ import annotations

import os.path
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

import attrs

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"]', re.MULTILINE)

Descend = Callable[[Path], bool]
"""Whether the closure follows a header's own includes and takes its implementers."""


def _always(_header: Path) -> bool:
    return True


def _dirs(value: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(Path(v) for v in value)


@attrs.frozen
class IncludeGraph:
    """Includes resolved as the compiler would: quoted ones beside the file, then in each folder
    of ``include_dirs``, angle ones in those folders only; what is found nowhere (the C library's
    headers) is left out. Each file is read once per graph."""

    include_dirs: tuple[Path, ...] = attrs.field(converter=_dirs)
    _read: dict[Path, tuple[Path, ...]] = attrs.field(factory=dict, init=False, eq=False)

    def includes(self, path: Path) -> tuple[Path, ...]:
        """The files ``path`` includes directly."""
        found = self._read.get(path)
        if found is None:
            resolved = (self._resolve(path, name, quoted) for quoted, name in include_names(path))
            found = self._read[path] = tuple(p for p in resolved if p is not None)
        return found

    def _resolve(self, path: Path, name: str, quoted: bool) -> Path | None:
        for folder in ((path.parent,) if quoted else ()) + self.include_dirs:
            candidate = folder / name
            if candidate.is_file():
                return normal(candidate)
        return None

    def reached(self, roots: Iterable[Path], descend: Descend = _always) -> set[Path]:
        """Every file the ``roots`` include, transitively (headers ``descend`` refuses are
        reached but not followed)."""
        seen: set[Path] = set()
        todo = list(roots)
        while todo:
            for header in self.includes(todo.pop()):
                if header not in seen:
                    seen.add(header)
                    if descend(header):
                        todo.append(header)
        return seen


def include_names(path: Path) -> list[tuple[bool, str]]:
    """``(quoted, name)`` of each include of ``path``, as written (found or not)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [(mark == '"', name) for mark, name in _INCLUDE.findall(text)]


def normal(path: Path | str) -> Path:
    """``path`` without ``.`` and ``..`` parts (links are not resolved: the cache may be one)."""
    return Path(os.path.normpath(Path(path).as_posix()))


def implements(source: Path, header: Path) -> bool:
    """``source`` is named after ``header`` (``x.cc`` or ``x_*.cc`` for ``x.h``)."""
    return source.stem == header.stem or source.stem.startswith(f"{header.stem}_")


def closure(graph: IncludeGraph, roots: Iterable[Path], candidates: Collection[Path], *,
            descend: Descend = _always) -> set[Path]:
    """The ``candidates`` the ``roots`` need: each candidate that includes a header reached from
    the roots (or from a candidate already taken) and implements it, until nothing is added.
    Roots that are candidates are taken themselves."""
    pool = [normal(c) for c in candidates]
    direct = {c: set(graph.includes(c)) for c in pool}
    todo: Sequence[Path] = [normal(r) for r in roots]
    taken = set(todo) & set(pool)
    while todo:
        headers = {h for h in (*graph.reached(todo, descend), *todo) if descend(h)}
        new = [c for c in pool if c not in taken
               and any(h in direct[c] and implements(c, h) for h in headers)]
        taken.update(new)
        todo = new
    return taken
