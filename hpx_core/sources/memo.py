"""A checkout found exactly at its pin, remembered until anything in it changes.

Verifying a checkout asks git a dozen questions per repository (commit, origin, status with
untracked and ignored files, every submodule, sparse patterns); a warm run asks them of every
pin. After a full verification finds a checkout at its pin, hpx remembers a signature of the
folder: every entry's path, size, modification time and inode, and git's HEAD and index files
(the root's and each submodule's). Any edit, new file, checkout or ``git add`` changes it, and
the next run verifies in full again; an unchanged signature means nothing changed since the
checkout was found at its pin.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from hpx_core.sources.pins import RepoPin

GIT_STATE = ("HEAD", "index")


def signature(path: Path) -> str:
    """SHA-256 over the stat of every entry under ``path`` and git's HEAD and index files."""
    digest = hashlib.sha256()
    _walk(len(str(path)) + 1, str(path), digest, in_git=False)
    return digest.hexdigest()


def _walk(skip: int, folder: str, digest: hashlib._Hash, *, in_git: bool) -> None:
    with os.scandir(folder) as found:
        entries = sorted(found, key=lambda e: e.name)
    lines = []
    for entry in entries:
        is_dir = entry.is_dir(follow_symlinks=False)
        inside_git = in_git or entry.name == ".git"
        if inside_git and not is_dir and entry.name not in GIT_STATE:
            continue  # objects, logs, hooks: HEAD and index say what is checked out
        stat = entry.stat(follow_symlinks=False)
        lines.append(f"{entry.path[skip:]}\0{stat.st_size}\0{stat.st_mtime_ns}\0{stat.st_ino}\n")
        if is_dir and not (inside_git and entry.name in ("objects", "logs", "hooks")):
            digest.update("".join(lines).encode(errors="surrogateescape"))
            lines = []
            _walk(skip, entry.path, digest, in_git=inside_git)
    digest.update("".join(lines).encode(errors="surrogateescape"))


def _memo_file(locks: Path, pin: RepoPin) -> Path:
    return locks / f"{pin.name}.verified.json"


def _pin_identity(pin: RepoPin) -> dict[str, object]:
    return {"url": pin.url, "commit": pin.commit, "exclude": list(pin.exclude),
            "submodules": [[s.path, s.commit, s.required] for s in pin.submodules]}


def remembered(locks: Path, pin: RepoPin, path: Path) -> bool:
    """``path`` is unchanged since it was found complete at ``pin``."""
    try:
        memo = json.loads(_memo_file(locks, pin).read_text(encoding="utf-8"))
        return bool(memo["pin"] == _pin_identity(pin) and memo["signature"] == signature(path))
    except (OSError, ValueError, KeyError, TypeError):
        return False


def remember(locks: Path, pin: RepoPin, path: Path) -> None:
    """Note that ``path`` was just found complete at ``pin`` (call holding its lock). A
    checkout missing an optional submodule is not remembered: each run tries to fetch it."""
    memo = {"pin": _pin_identity(pin), "signature": signature(path)}
    target = _memo_file(locks, pin)
    temp = target.with_name(target.name + ".tmp")
    try:
        locks.mkdir(parents=True, exist_ok=True)
        temp.write_text(json.dumps(memo), encoding="utf-8")
        temp.replace(target)
    except OSError:
        pass  # not remembered: the next run verifies in full


def forget(locks: Path, pin: RepoPin) -> None:
    _memo_file(locks, pin).unlink(missing_ok=True)
