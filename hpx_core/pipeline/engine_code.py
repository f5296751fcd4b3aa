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
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import Any

import attrs

from hpx_core.sources.content import add_file, folder_files, package_roots

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
    for root in package_roots(sys.modules.get(package, module)):
        for rel, file in folder_files(root, skip_dirs=SKIPPED_DIRS,
                                      skip_suffixes=SKIPPED_SUFFIXES):
            add_file(digest, f"package/{rel}", file)
            count += 1
    for name in sorted(glue):
        digest.update(f"\0glue/{name}\0".encode(errors="surrogateescape"))
        digest.update(hashlib.sha256(glue[name].encode(errors="surrogateescape")).digest())
    return EngineCode(digest.hexdigest(), package, count, tuple(sorted(glue)))

