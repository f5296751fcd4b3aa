"""Loggers that load structlog only for a line that will be written.

Every module logs through structlog, which takes about 40 ms to import (its console renderer
brings rich's tracebacks, its stdlib bridge asyncio). A warm ``hpx profile`` at the default
level writes no log line, so it should not pay for that: :func:`get_logger` gives a stand-in
with structlog's calls. A call below the level given to :func:`set_level` is dropped on the
spot; any other goes to structlog, imported (and set up by the function handed to
:func:`set_level`) then. Unset, every call goes to structlog, as with structlog's own loggers.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

_lock = threading.Lock()
_level = logging.NOTSET
_setup: Callable[[], None] | None = None


def set_level(level: int, setup: Callable[[], None] | None = None) -> None:
    """Drop calls below ``level``; ``setup`` (structlog's configuration) runs before the first
    line that is written."""
    global _level, _setup
    with _lock:
        _level, _setup = level, setup


def _structlog_ready() -> None:
    global _setup
    with _lock:
        setup, _setup = _setup, None
    if setup is not None:
        setup()


class Logger:
    """structlog's ``debug``, ``info``, ``warning`` and ``error``, under one logger name."""

    __slots__ = ("_name",)

    def __init__(self, name: str | None) -> None:
        self._name = name

    def debug(self, event: str, **values: Any) -> None:
        self._emit(logging.DEBUG, event, values)

    def info(self, event: str, **values: Any) -> None:
        self._emit(logging.INFO, event, values)

    def warning(self, event: str, **values: Any) -> None:
        self._emit(logging.WARNING, event, values)

    def error(self, event: str, **values: Any) -> None:
        self._emit(logging.ERROR, event, values)

    def _emit(self, level: int, event: str, values: dict[str, Any]) -> None:
        if level < _level:
            return
        _structlog_ready()
        import structlog

        method = logging.getLevelName(level).lower()
        getattr(structlog.get_logger(self._name), method)(event, **values)


def get_logger(name: str | None = None) -> Logger:
    """The logger of module ``name`` (pass ``__name__``)."""
    return Logger(name)
