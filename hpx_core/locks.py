"""File locks that say when they wait.

Runs that share a cache (several ``hpx profile`` processes, the cells of ``hpx matrix``) meet on
file locks: an engine library another run is building, a work folder another run is using. A
waiting run should be visibly waiting, not silently stuck, so :func:`hold` first tries the lock
and, when it is taken, tells the listener of this thread (set with :func:`listening`) what it
waits for before it blocks, and again when it got it (a matrix cell lends its build slot to
other cells meanwhile).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from filelock import FileLock, Timeout

from hpx_core.errors import HpxError

WAIT_TIMEOUT_S = 6 * 3600.0
"""Longer than any build: a lock held this long belongs to a run that hangs."""

Listener = Callable[[str], None]
_listeners: ContextVar[tuple[Listener, Listener] | None] = ContextVar(
    "hpx_lock_listeners", default=None)


def _ignore(_what: str) -> None:
    return None


@contextmanager
def listening(on_wait: Listener, on_got: Listener = _ignore) -> Iterator[None]:
    """Within this block (in this thread), ``on_wait`` hears what a lock waits for and
    ``on_got`` when the wait is over."""
    token = _listeners.set((on_wait, on_got))
    try:
        yield
    finally:
        _listeners.reset(token)


def note_waiting(what: str) -> None:
    """Tell this thread's listener, if any, that it now waits for ``what``."""
    listeners = _listeners.get()
    if listeners is not None:
        listeners[0](what)


def note_got(what: str) -> None:
    """Tell this thread's listener, if any, that the wait for ``what`` is over."""
    listeners = _listeners.get()
    if listeners is not None:
        listeners[1](what)


@contextmanager
def hold(path: Path, what: str, timeout: float = WAIT_TIMEOUT_S) -> Iterator[None]:
    """Hold the lock file ``path``; ``what`` names the thing it guards, for the waiting note.
    A lock that cannot be made at all (its folder is a file, or not writable) is one error
    naming the path."""
    lock = FileLock(str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock.acquire(timeout=0)
    except Timeout:  # before OSError: filelock's Timeout is a TimeoutError
        _wait(lock, path, what, timeout)
    except OSError as error:
        raise HpxError(f"cannot take the lock {path} ({error.strerror or error}): {what} "
                       "must be written there",
                       f"{path.parent} must be a folder hpx can write in; remove or fix what "
                       "is there (it holds only hpx's cache)") from None
    try:
        yield
    finally:
        lock.release()


def _wait(lock: FileLock, path: Path, what: str, timeout: float) -> None:
    """Say what the run waits for, then wait for the lock; a lock held past ``timeout`` is
    one error naming its file."""
    note_waiting(what)
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        raise HpxError(
            f"waited {timeout:.0f} s for {what}, which another run still holds",
            f"if no other hpx run is going, delete the lock file {path}",
        ) from None
    try:
        note_got(what)
    except BaseException:
        lock.release()
        raise
