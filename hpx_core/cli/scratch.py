"""Scratch folders in the system's temporary folder that the next run removes if left behind.

``hpx prepare`` runs each preparation in a scratch folder (its work folder and output folder
are of no use afterwards). Ctrl-C and SIGTERM remove it on the way out (both arrive as
``KeyboardInterrupt``: :mod:`hpx_core.cli.stopping`), but SIGKILL, the out-of-memory killer or
a power cut leave it. So each folder has a lock file beside it, held while the folder is in
use, and making a folder first removes every folder of the same prefix whose lock nobody holds:
its run is gone. The lock is taken before the folder is made, so a folder is never seen
without its run holding the lock. The folder stays out of the cache, which may be read-only.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

LOCK = ".lock"


@contextlib.contextmanager
def scratch_folder(prefix: str, parent: Path | None = None) -> Iterator[Path]:
    """A new folder ``<prefix><random>`` in ``parent`` (default: the system's temporary
    folder), removed when the block ends; folders of dead runs are removed first."""
    where = Path(parent or tempfile.gettempdir())
    remove_stale(where, prefix)
    folder = where / f"{prefix}{secrets.token_hex(8)}"
    lock = Path(str(folder) + LOCK)
    try:
        with FileLock(str(lock)):
            folder.mkdir(mode=0o700)
            try:
                yield folder
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        lock.unlink(missing_ok=True)


def remove_stale(where: Path, prefix: str) -> None:
    """Remove the folders (and lock files) of ``prefix`` in ``where`` that no live run holds."""
    for folder in where.glob(f"{prefix}*"):
        if folder.name.endswith(LOCK) or not folder.is_dir() or folder.is_symlink():
            continue
        lock = FileLock(str(folder) + LOCK)
        try:
            lock.acquire(timeout=0)
        except (Timeout, OSError):
            continue  # held: its run goes on (or the lock is another user's)
        try:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            lock.release()
        Path(str(folder) + LOCK).unlink(missing_ok=True)
    for orphan in where.glob(f"{prefix}*{LOCK}"):  # a run killed between lock and folder
        if not Path(str(orphan).removesuffix(LOCK)).exists():
            _remove_free_lock(orphan)


def _remove_free_lock(path: Path) -> None:
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=0)
    except (Timeout, OSError):
        return
    try:
        path.unlink(missing_ok=True)
    finally:
        lock.release()
