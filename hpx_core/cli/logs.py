"""Log set-up: readable lines on a terminal, JSON lines with ``--log-json``.

structlog itself is configured (and imported) only when a line passes the level
(:mod:`hpx_core.log`): a run that logs nothing at its level never loads it.
"""

from __future__ import annotations

import functools
import logging
import sys

from hpx_core.log import set_level


def configure_logging(*, json: bool = False, verbosity: int = 0) -> None:
    """Route log lines to stderr; ``verbosity`` 0 shows warnings, 1 info, 2+ debug."""
    level = [logging.WARNING, logging.INFO, logging.DEBUG][min(verbosity, 2)]
    set_level(level, functools.partial(_configure_structlog, json, level))


def _configure_structlog(json: bool, level: int) -> None:
    import structlog

    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=_StderrLogger,
        cache_logger_on_first_use=False,
    )


class _StderrLogger:
    """Writes to whatever ``sys.stderr`` is at call time (it may be replaced after set-up)."""

    def __init__(self, *_args: object) -> None:
        pass

    def msg(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    debug = info = warning = warn = error = critical = exception = fatal = log = msg
