"""Run an engine's tool in-process with everything it prints captured to a log file.

A compiler that is a Python package (a model compiler, a converter) is called through its API, in
hpx's own process. Its logging handlers, rich consoles, ``print`` calls and warnings would write
to the user's terminal; C code it loads and programs it starts write to file descriptors 1 and 2.
While :func:`tool_output_to` is active all of that goes to the run's log, and the user sees only
hpx's one-line cause and hint. Other threads (the CLI's progress display) keep the terminal.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TextIO

_STANDARD_FDS = (1, 2)


@contextlib.contextmanager
def tool_output_to(log_file: Path, tool: str) -> Iterator[Path]:
    """Send the calling thread's output, every logger's and fds 1/2 to ``log_file``.

    The log is appended to (several tools may share one run's log), headed by ``tool``. An
    exception leaving the block is written to the log with its traceback, then re-raised.
    """
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("a", encoding="utf-8", errors="replace", buffering=1) as log:
        log.write(f"--- {tool}, {time.strftime('%Y-%m-%d %H:%M:%S')} ---\n")
        with _descriptors_to(log) as terminals, _streams_to(log, terminals), \
                _logging_to(log), _warnings_to(log):
            try:
                yield log_file
            except BaseException:
                log.write(traceback.format_exc())
                raise


class _ThreadRouted(io.TextIOBase):
    """Stands in for ``sys.stdout``/``sys.stderr``: the capturing thread's writes go to the
    log, other threads' to where the stream went before; after the block, everything does
    (a handler the tool bound to this stream keeps working)."""

    def __init__(self, log: TextIO, other: TextIO) -> None:
        self._log, self._other = log, other
        self._owner: int | None = threading.get_ident()

    def release(self) -> None:
        self._owner = None

    def _target(self) -> TextIO:
        return self._log if threading.get_ident() == self._owner else self._other

    def write(self, text: str) -> int:
        return self._target().write(text)

    def flush(self) -> None:
        self._target().flush()

    def fileno(self) -> int:
        return self._target().fileno()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._target().isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._target(), "encoding", None) or "utf-8"


@contextlib.contextmanager
def _descriptors_to(log: TextIO) -> Iterator[dict[int, TextIO]]:
    """fds 1 and 2 point at the log; answers text streams on the saved terminal fds."""
    _flush_all()
    saved: dict[int, int] = {}
    terminals: dict[int, TextIO] = {}
    try:
        for fd in _STANDARD_FDS:
            try:
                saved[fd] = os.dup(fd)
            except OSError:  # not open in this process: nothing can be written there
                continue
            os.dup2(log.fileno(), fd)
        terminals = {fd: _text_on(copy) for fd, copy in saved.items()}
        yield terminals
    finally:
        _flush_all()
        for stream in terminals.values():
            stream.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)


def _text_on(fd: int) -> TextIO:
    return open(fd, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)


def _flush_all() -> None:
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()


@contextlib.contextmanager
def _streams_to(log: TextIO, terminals: dict[int, TextIO]) -> Iterator[None]:
    """``sys.stdout``/``sys.stderr`` routed by thread; other threads keep their destination
    (the saved terminal fd when the stream wrote to fd 1/2, which now points at the log)."""
    out = _ThreadRouted(log, _other(sys.stdout, 1, terminals))
    err = _ThreadRouted(log, _other(sys.stderr, 2, terminals))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield
    finally:
        out.release()
        err.release()


def _other(stream: IO[str], fd: int, terminals: dict[int, TextIO]) -> TextIO:
    try:
        writes_fd = stream.fileno() == fd
    except (OSError, ValueError, AttributeError):  # io.UnsupportedOperation is an OSError
        writes_fd = False
    if writes_fd and fd in terminals:
        return terminals[fd]
    return stream  # type: ignore[return-value]


@contextlib.contextmanager
def _logging_to(log: TextIO) -> Iterator[None]:
    """Every logger that has handlers hands its records to one handler writing the log;
    a logger that propagates leaves them to the root's. Levels are left as they are."""
    handler = logging.StreamHandler(log)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    loggers = [logging.getLogger()] + [
        logger for logger in logging.Logger.manager.loggerDict.values()
        if isinstance(logger, logging.Logger) and logger.handlers
    ]
    saved = [(logger, list(logger.handlers)) for logger in loggers]
    for logger in loggers:
        is_root = logger is logging.getLogger()
        logger.handlers = [handler] if is_root or not logger.propagate else []
    try:
        yield
    finally:
        for logger, handlers in saved:
            logger.handlers = handlers


@contextlib.contextmanager
def _warnings_to(log: TextIO) -> Iterator[None]:
    with warnings.catch_warnings():
        def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: TextIO | None = None, line: str | None = None) -> None:
            log.write(warnings.formatwarning(message, category, filename, lineno, line))

        warnings.showwarning = show
        yield
