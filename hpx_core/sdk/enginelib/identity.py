"""What names an engine library in the cache: the inputs that change its objects, not where
they are.

A key holds CPU/FPU/ABI flags, the toolchain and its version, the pinned commits (or, for a
development override, a hash of the checkout's content) and the engine's options. Paths are
written relative to named roots (each source repository, the cache itself), so the same sources
in another folder, or a cache moved or restored elsewhere, give the same key; board names never
enter it, so two boards with the same CPU flags share one library.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hpx_core.cachedir import DEBUG_ROOT as DEBUG_ROOT  # the plugins find it here
from hpx_core.contract import SourceSet
from hpx_core.sources import cache_root
from hpx_core.sources.content import tree_digest

CACHE_ROOT = "cache"


def source_roots(sources: SourceSet) -> dict[str, str]:
    """Each repository's folder by name, and the cache's own folder."""
    roots = {repo.name: repo.path.as_posix() for repo in sources.repos}
    return roots | {CACHE_ROOT: cache_root().as_posix()}


def source_identity(sources: SourceSet) -> dict[str, str]:
    """The provenance and, per repository, its commit; a development override's content hash
    in place of a commit that does not describe it (local edits, no git)."""
    identity: dict[str, str] = {"provenance": sources.provenance}
    inside = cache_root().resolve()
    for repo in sources.repos:
        edited = sources.provenance == "development-overrides" and not _under(repo.path, inside)
        identity[f"pin:{repo.name}"] = tree_digest(repo.path) if edited else repo.commit
    return identity


def _under(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root)


def portable(value: Any, roots: Mapping[str, str]) -> Any:
    """``value`` (JSON-like) with every root folder written ``@name@`` (longest first)."""
    ordered = sorted(roots.items(), key=lambda item: len(item[1]), reverse=True)
    return _replace(value, ordered)


def _replace(value: Any, roots: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for name, root in roots:
            value = value.replace(root, f"@{name}@")
        return value
    if isinstance(value, Mapping):  # keys too: per-file options are keyed by path
        return {_replace(str(k), roots): _replace(v, roots) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replace(v, roots) for v in value]
    return value


def resolved(value: str, roots: Mapping[str, str]) -> str:
    """A :func:`portable` string with each ``@name@`` written as that root's folder now."""
    for name, root in roots.items():
        value = value.replace(f"@{name}@", root)
    return value


def identity_key(doc: Mapping[str, Any], roots: Mapping[str, str]) -> str:
    """SHA-256 over ``doc`` with its paths made portable."""
    text = json.dumps(portable(doc, roots), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def debug_prefix_flags(root: Path, temp: Path, final: Path) -> tuple[str, ...]:
    """Compiler flags recording the cache folder ``root`` as :data:`DEBUG_ROOT`, and a library
    built in ``temp`` as its ``final`` folder (the later map wins in GCC and clang)."""
    inside = final.is_relative_to(root)
    final_name = f"{DEBUG_ROOT}/{final.relative_to(root).as_posix()}" if inside else str(final)
    return (f"-ffile-prefix-map={root.as_posix()}={DEBUG_ROOT}",
            f"-ffile-prefix-map={temp.as_posix()}={final_name}")
