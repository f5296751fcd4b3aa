"""A hash of what a source folder holds, for a development override whose commit does not say;
the walk it takes, shared with the digests of the code a Python package ships.

A git checkout is its commit plus its local changes (``git diff HEAD`` and the untracked files'
contents); a folder without git is every file's path and bytes. Two folders with the same
content give the same hash wherever they are, so an engine library keyed by it is shared by
both, and an edit gives a new key.
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

NO_PROMPT = {"GIT_TERMINAL_PROMPT": "0"}


def _git(path: Path, *args: str) -> bytes | None:
    env = dict(os.environ, **NO_PROMPT)
    try:
        done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, env=env,
                              check=False, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _git_digest(path: Path) -> str | None:
    head = _git(path, "rev-parse", "--verify", "HEAD^{commit}")
    if head is None or not (path / ".git").exists():
        return None
    diff = _git(path, "diff", "HEAD", "--binary", "--no-ext-diff", "--ignore-submodules=all")
    untracked = _git(path, "ls-files", "-z", "--others", "--exclude-standard")
    if diff is None or untracked is None:
        return None
    if not diff and not untracked:
        return f"git:{head.decode().strip()}"
    digest = hashlib.sha256(head + diff)
    for name in sorted(n for n in untracked.split(b"\0") if n):
        add_file(digest, name.decode(errors="surrogateescape"), path / os.fsdecode(name))
    return f"git-edited:{digest.hexdigest()}"


def add_file(digest: hashlib._Hash, rel: str, file: Path) -> None:
    """``file`` into ``digest`` under its relative name (a link by its target)."""
    digest.update(f"\0{rel}\0".encode(errors="surrogateescape"))
    if file.is_symlink():
        digest.update(file.readlink().as_posix().encode(errors="surrogateescape"))
    elif file.is_file():
        digest.update(hashlib.sha256(file.read_bytes()).digest())


def folder_files(path: Path, *, skip_dirs: frozenset[str] = frozenset({".git"}),
                 skip_suffixes: tuple[str, ...] = ()) -> Iterator[tuple[str, Path]]:
    """Every file under ``path`` (a lone file: itself) in a stable order, with its path
    relative to ``path``; folders named in ``skip_dirs`` and names ending in ``skip_suffixes``
    left out."""
    if path.is_file():
        yield path.name, path
        return
    for dirpath, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in skip_dirs)
        for name in sorted(files):
            if not name.endswith(skip_suffixes):
                file = Path(dirpath) / name
                yield file.relative_to(path).as_posix(), file


def package_roots(package: ModuleType) -> list[Path]:
    """Where an imported package's files are: its folders (a namespace package may have
    several; a lone module is one file, taken as a folder of one; a module made in memory has
    none)."""
    paths = getattr(package, "__path__", None)
    if paths is not None:
        return [Path(p) for p in sorted(paths)]
    file = getattr(package, "__file__", None)
    return [Path(file)] if file else []


def _folder_digest(path: Path) -> str:
    digest = hashlib.sha256()
    for rel, file in folder_files(path):
        add_file(digest, rel, file)
    return f"files:{digest.hexdigest()}"


@functools.cache
def tree_digest(path: Path) -> str:
    """``git:<commit>`` for a clean checkout, else a SHA-256 of the content (see above)."""
    return _git_digest(path) or _folder_digest(path)
