"""The engine's own code in a run's identity: the files its package ships and the glue it adds.

Pinned sources are named by their commits, but an engine whose C ships inside its own package
(glue files, a folder of kernels its CMake fragment compiles, templates it renders) has no
commit, and two runs of different kernels would otherwise carry the same identity. The core
hashes that code itself, so no engine has to say anything: every file of the Python package
that holds the engine's plugin module (bytecode aside), then every file the engine's
``FirmwareContribution`` adds to the generated project. ``hpx compare`` shows the digest as a
dimension; the bundle's provenance says what it covers.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".mypy_cache", ".pytest_cache"})
SKIPPED_SUFFIXES = (".pyc", ".pyo")  # written by whoever imports the package, not shipped


@attrs.frozen
class EngineCode:
    """The digest of an engine's shipped files and glue, and what it covers."""

    sha256: str
    package: str
    package_files: int
    glue_files: tuple[str, ...]

    def provenance(self) -> dict[str, Any]:
        """The bundle's ``provenance.engine_code``."""
        return {"sha256": self.sha256, "package": self.package,
                "package_files": self.package_files, "glue_files": list(self.glue_files)}


def engine_code(module: ModuleType, glue: Mapping[str, str]) -> EngineCode:
    """The identity of the code in ``module``'s top-level package and of ``glue`` (relative
    path -> text, the contribution's files); the same files give the same digest anywhere."""
    package = module.__name__.partition(".")[0]
    digest = hashlib.sha256()
    count = 0
    for root in _roots(sys.modules.get(package, module)):
        for rel, file in _files(root):
            digest.update(f"\0package\0{rel}\0".encode(errors="surrogateescape"))
            digest.update(hashlib.sha256(file.read_bytes()).digest())
            count += 1
    for name in sorted(glue):
        digest.update(f"\0glue\0{name}\0".encode(errors="surrogateescape"))
        digest.update(hashlib.sha256(glue[name].encode(errors="surrogateescape")).digest())
    return EngineCode(digest.hexdigest(), package, count, tuple(sorted(glue)))


def _roots(package: ModuleType) -> list[Path]:
    """The package's folders (a namespace package may have several; a lone module is one
    file, taken as a folder of one)."""
    paths = getattr(package, "__path__", None)
    if paths is not None:
        return [Path(p) for p in sorted(paths)]
    file = getattr(package, "__file__", None)
    return [Path(file)] if file else []


def _files(root: Path) -> Iterator[tuple[str, Path]]:
    """Every regular file under ``root`` in a stable order, by its path relative to it."""
    if root.is_file():
        yield root.name, root
        return
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(names):
            file = Path(dirpath) / name
            if not name.endswith(SKIPPED_SUFFIXES) and file.is_file() and not file.is_symlink():
                yield file.relative_to(root).as_posix(), file
