"""A command stopped by Ctrl-C or ``kill`` ends with one error and one hint, like any failure.

Python turns Ctrl-C into ``KeyboardInterrupt``, which every stage already answers by removing
what it half-made (temporary folders, build tools' process groups: :mod:`hpx_core.firmware.
stoppable`); SIGTERM, the signal ``kill``, a CI job's timeout and service managers send, ended
hpx at once instead, with no word and its temporary folders left. While a command runs, both
signals raise that same interruption, remembering which one came; typer ends the command with
status 130, and :func:`stopped_error` then says what stopped it and what is kept.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from hpx_core.errors import HpxError

STOPPING = (signal.SIGINT, signal.SIGTERM)
KEPT = ("what was finished is kept (sources and engine libraries in the cache) and nothing "
        "half-written is: run the command again to go on")


class StoppedError(HpxError):
    """The user (or a job's timeout) stopped the command with a signal."""

    def __init__(self, name: str, number: int) -> None:
        super().__init__(f"stopped by {name}", KEPT)
        self.exit_code = 128 + number


_received: list[signal.Signals] = []


def _interrupt(number: int, _frame: FrameType | None) -> None:
    _received.append(signal.Signals(number))
    raise KeyboardInterrupt(signal.Signals(number).name)


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """While the block runs, SIGINT and SIGTERM raise ``KeyboardInterrupt`` (a signal ignored
    when hpx started, as in a shell's background job, stays ignored); the handlers before are
    put back after it."""
    _received.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in STOPPING}
    for number, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(number, _interrupt)
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def stopped_error() -> StoppedError | None:
    """The error that says which signal stopped the command, when one did."""
    if not _received:
        return None
    first = _received[0]
    return StoppedError(first.name, first.value)
