"""How far a library build is, told from Ninja's status lines (``[done/total] ...``).

A front end (the CLI's status line) may listen with :func:`reporting`; without a listener a
line goes to stderr at every tenth of the way, so a log or CI output shows a long build moving.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

STATUS = re.compile(r"^\[(\d+)/(\d+)\] ")
Listener = Callable[[str, int, int], None]
"""``listener(library name, units done, units in all)``."""
_listener: ContextVar[Listener | None] = ContextVar("hpx_build_progress", default=None)


@contextmanager
def reporting(listener: Listener) -> Iterator[None]:
    """Send every library build's progress to ``listener`` within this block."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def ninja_status(line: str) -> tuple[int, int] | None:
    """``(done, total)`` from a Ninja status line, or None for any other line."""
    found = STATUS.match(line)
    return (int(found[1]), int(found[2])) if found else None


def tracker(name: str) -> Callable[[str], None]:
    """A function fed every output line of ``name``'s build that reports its progress."""
    listener = _listener.get() or _TenthLines()

    def feed(line: str) -> None:
        status = ninja_status(line)
        if status is not None:
            listener(name, *status)

    return feed


class _TenthLines:
    """One stderr line each time a build passes another tenth of its units."""

    def __init__(self) -> None:
        self.shown = 0

    def __call__(self, name: str, done: int, total: int) -> None:
        tenth = done * 10 // total if total else 0
        if tenth > self.shown:
            self.shown = tenth
            print(f"building {name}: {tenth * 10}% ({done}/{total} units)", file=sys.stderr,
                  flush=True)


def bar(done: int, total: int, width: int = 24) -> str:
    """A text progress bar, ``[#####-----]``."""
    filled = width * done // total if total else 0
    return "[" + "#" * filled + "-" * (width - filled) + "]"
