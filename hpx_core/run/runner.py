"""One interface for everything that runs firmware: an emulator here, a board through a probe.

A runner takes a linked ELF and returns the raw wire stream with what it knows about the run;
judging the stream and writing the bundle is the same for every runner
(:mod:`hpx_core.run.record`). :func:`hpx_core.runners.runner_for` is the one place that
chooses a runner for a board.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import attrs

from hpx_core.boards import Board
from hpx_core.contract import Json
from hpx_core.errors import RunError

if TYPE_CHECKING:  # numpy comes with it: only a run that measures energy has one
    from hpx_core.power.trace import PowerTrace

MAX_CAPTURE = 64 * 1024 * 1024
"""The most bytes of a device stream hpx keeps from one run (64 MiB). A complete stream is a
few MiB at most (``--check-layers=all`` dumps at most 1 MiB of tensors, about 2.2 MiB of
records; MLPerf Tiny's VWW with every layer exact sends 19 KB), so a stream this long is
firmware printing in a loop: the run stops there, with the first ``MAX_CAPTURE`` bytes in the
failed bundle, and hpx's memory stays bounded however long the firmware talks. Runners take
``max_capture`` (the Python API) to choose another; no command-line option, since no
legitimate stream comes near it."""


@attrs.frozen
class Execution:
    """What one run of an ELF produced, before anything was judged.

    ``exit_code`` is an emulator's own exit status: 0 when the firmware ended the run, any
    other value a failure of the emulator (the firmware's verdict is the stream's END record);
    None for a board or a run stopped at its timeout. ``details`` go to the bundle's
    ``run.json``; ``identity`` (emulator version, probe) to its provenance. ``issues`` are what
    the runner saw go wrong beside the stream (bytes the transport dropped, a cache that was
    off): they join the measurement's issues.
    """

    stream: bytes
    seconds: float
    details: Mapping[str, Json]
    identity: Mapping[str, Json]
    exit_code: int | None = None
    timed_out: bool = False
    issues: tuple[str, ...] = ()
    power: PowerTrace | None = None
    """The energy windows an instrument recorded during the run (a probe run with --power)."""


class StreamStoppedError(RunError):
    """The stream ended early (a timeout, a silent target, a lost link, or the user stopped
    the run: ``interrupted``); ``partial`` is what came."""

    def __init__(self, message: str, hint: str, partial: bytes, *,
                 interrupted: bool = False) -> None:
        super().__init__(message, hint)
        self.partial = partial
        self.interrupted = interrupted


def over_capture_limit(limit: int, partial: bytes | bytearray) -> StreamStoppedError:
    """The run stopped at the capture limit: the error names it and keeps the first bytes."""
    return StreamStoppedError(
        f"the firmware sent more than the capture limit of {_size(limit)} before its END "
        "record",
        "it prints in a loop or far too much: print less (plain text lines and records are "
        f"meant to be short); the first {_size(limit)} are in the failed bundle",
        bytes(partial[:limit]),
    )


def _size(limit: int) -> str:
    mib = limit / (1024 * 1024)
    return f"{mib:g} MiB" if mib >= 1 else f"{limit:,} bytes"


class RunInterruptedError(RunError):
    """The user stopped the run (Ctrl-C, SIGTERM); its failed bundle was kept."""

    exit_code = 130


class Runner(Protocol):
    """Runs firmware on one board. ``execute`` raises :class:`RunError` when it cannot start
    (no emulator, no probe) and :class:`StreamStoppedError` when the stream stops early."""

    @property
    def board(self) -> Board: ...

    @property
    def timeout(self) -> float: ...

    def check(self) -> None:
        """Raise :class:`~hpx_core.errors.HpxError` when a run could not start now."""

    def execute(self, elf: Path) -> Execution: ...


def held(runner: Runner) -> AbstractContextManager[object]:
    """Keep what ``runner`` needs for several runs (a board farm's place) until the block
    ends; local runners need nothing kept."""
    hold: Callable[[], AbstractContextManager[object]] | None = getattr(runner, "hold", None)
    return hold() if hold is not None else nullcontext()
