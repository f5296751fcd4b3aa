"""Run a firmware ELF on an emulated board under QEMU and capture its stream.

The UART is QEMU's stdout, kept byte for byte; ``-icount`` makes counts exact and repeatable.
Firmware gets no way to the host: no semihosting (a ``BKPT 0xAB`` faults like any other
breakpoint, and the recorder names it), no network (the boards' Ethernet controller has no
peer; QEMU's default would give it a user-mode network that reaches the host), and QEMU runs
under its own seccomp sandbox, which denies spawning processes. The firmware ends the run
with a system reset request, which ``-no-reboot`` turns into QEMU's exit; its verdict is the
stream's END record, as on a board. QEMU's own exit status says only whether QEMU failed.

QEMU writes its stdout and stderr straight into temporary files, never through a pipe into
Python: its UART model writes every character on its own, and a pipe read as it fills (what
``communicate`` does) becomes one Python object per few bytes, tens of times the stream in
memory. The run is watched from outside: it stops at its timeout, or once the stream passes
the capture limit (:data:`~hpx_core.run.runner.MAX_CAPTURE`); only that many bytes are read
back, so hpx's memory stays bounded however long the firmware talks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Literal

import attrs

from hpx_core import head_start
from hpx_core.boards import Board
from hpx_core.contract import Json
from hpx_core.errors import RunError, ToolError
from hpx_core.firmware.elfinfo import load_segments
from hpx_core.log import get_logger
from hpx_core.run.runner import MAX_CAPTURE, Execution, over_capture_limit
from hpx_core.tool_version import version_line

log = get_logger(__name__)

QEMU = head_start.QEMU
NO_PEER = b"qemu-system-arm: warning: nic lan9118.0 has no peer\n"
"""What QEMU says of the boards' Ethernet controller without a network: expected, dropped."""
STDERR_KEPT = 64 * 1024
"""QEMU's own messages kept from one run: the firmware cannot write there, QEMU says little."""
WATCH_EVERY = 0.05
"""Seconds between looks at the run: the stream passes the limit by at most this much output."""
Ending = Literal["exit", "timeout", "limit"]


@attrs.frozen
class RunOutput:
    """What one emulator run produced."""

    argv: tuple[str, ...]
    stream: bytes  # the UART stream (wire records), raw
    stderr: bytes
    exit_code: int | None  # None when it was stopped (the timeout, the capture limit)
    seconds: float
    timed_out: bool
    over_limit: bool = False  # stopped once the stream passed the capture limit
    head_start: bool = False  # started as the console script started (:mod:`hpx_core.head_start`)


def qemu_argv(board: Board, elf: Path, qemu: str = QEMU) -> list[str]:
    """The QEMU command line for ``board``: no display, UART on stdout, icount, and nothing
    of the host within the firmware's reach."""
    if board.qemu is None:
        raise RunError(
            f"board {board.name} is not an emulated board",
            "run silicon boards with the probe runner",
        )
    spec = board.qemu
    return head_start.qemu_command(qemu, spec.machine, spec.cpu, spec.icount_shift, elf)


def check_load_segments(board: Board, elf: Path) -> None:
    """Refuse an ELF whose loadable segments do not each fit one of the board's regions.

    QEMU writes every segment's memory size at its physical address, zeros included; a
    segment running past a region lands in whatever follows (on mps2-an386, a mirror of code
    memory), and the firmware then hangs instead of failing.
    """
    for start, size in load_segments(elf):
        if not any(r.origin <= start and start + size <= r.origin + r.length
                   for r in board.memory):
            raise RunError(
                f"{elf.name} loads {size:,} bytes at 0x{start:08x}, outside every memory region "
                f"of {board.name}",
                "give NOLOAD sections (.bss, stack) their run address as load address in the "
                "linker script, and keep the image within the board's memory map",
            )


def run_on_qemu(board: Board, elf: Path, *, timeout: float = 60.0,
                max_capture: int = MAX_CAPTURE,
                on_output: Callable[[bytes], None] | None = None) -> RunOutput:
    """Run ``elf`` on ``board`` until it exits, ``timeout`` seconds pass, or its stream passes
    ``max_capture`` bytes. ``on_output`` hears the stream's new bytes at every look (a
    progress display; the stream is still read back whole at the end).

    Neither stop is raised here: the partial stream (at most ``max_capture`` bytes) is
    returned (``timed_out``, ``over_limit``) so the caller can keep it in a failed bundle,
    then raise :class:`RunError`.
    """
    found = shutil.which(QEMU)
    if not found:
        raise ToolError(
            f"{QEMU} is not on PATH", "install it (Debian: apt-get install qemu-system-arm)"
        )
    if not elf.is_file():
        raise RunError(f"firmware {elf} does not exist", "build it first with `hpx build`")
    check_load_segments(board, elf)
    argv = qemu_argv(board, elf, found)
    early = head_start.take(argv, elf)
    # Leaving the block stops QEMU if it still runs: stopped (SIGTERM reaches hpx alone), QEMU
    # goes too.
    with early or head_start.Launched(argv) as run:
        ending = _watch(run.proc, run.out, run.started + timeout, max_capture, on_output)
        seconds = time.perf_counter() - run.started
        stream, stderr = _kept(run.out, max_capture), _kept(run.err, STDERR_KEPT)
    exit_code = run.proc.returncode if ending == "exit" else None
    if exit_code is not None and board.qemu is not None:
        spec = board.qemu
        head_start.remember(spec.machine, spec.cpu, spec.icount_shift, elf)
    log.info("qemu", board=board.name, exit_code=exit_code, seconds=round(seconds, 3),
             ending=ending, stream_bytes=len(stream), head_start=early is not None)
    return RunOutput(tuple(argv), stream, stderr.replace(NO_PEER, b""), exit_code, seconds,
                     ending == "timeout", ending == "limit", early is not None)


def _watch(proc: subprocess.Popen[bytes], out: IO[bytes], deadline: float,
           max_capture: int, on_output: Callable[[bytes], None] | None = None) -> Ending:
    """Wait for QEMU to exit; kill it at ``deadline`` or once ``out`` passes ``max_capture``
    bytes. Only the file's size is looked at (and, for ``on_output``, the bytes new since the
    last look, which are not kept)."""
    ending: Ending | None = None
    heard = 0
    while ending is None:
        try:
            proc.wait(WATCH_EVERY)
            return "exit"
        except subprocess.TimeoutExpired:
            pass
        size = os.fstat(out.fileno()).st_size
        if on_output is not None and heard < size <= max_capture:
            on_output(os.pread(out.fileno(), size - heard, heard))
            heard = size
        if size > max_capture:
            ending = "limit"
        elif time.perf_counter() >= deadline:
            ending = "timeout"
    proc.kill()
    proc.wait()
    return ending


def _kept(file: IO[bytes], limit: int) -> bytes:
    """The first ``limit`` bytes QEMU wrote to ``file`` (asked for by their size: a read of
    ``limit`` would take that much memory first, whatever the file holds)."""
    file.seek(0)
    return file.read(min(os.fstat(file.fileno()).st_size, limit))


def qemu_version(argv0: str) -> str:
    """The first line of ``qemu-system-arm --version`` (for provenance), kept in the cache:
    asked only as a run starts, after every check."""
    return version_line(argv0, keep=True) or "unknown"


@attrs.frozen
class QemuRunner:
    """The emulated boards' runner: one QEMU process per run, ``-icount`` for exact counts."""

    board: Board
    timeout: float = 600.0
    max_capture: int = MAX_CAPTURE

    def check(self) -> None:
        if not shutil.which(QEMU):
            raise ToolError(f"{QEMU} is not on PATH",
                            "install it (Debian: apt-get install qemu-system-arm)")

    def execute(self, elf: Path) -> Execution:
        output = run_on_qemu(self.board, elf, timeout=self.timeout,
                             max_capture=self.max_capture)
        if output.over_limit:
            raise over_capture_limit(self.max_capture, output.stream)
        details: dict[str, Json] = {
            "runner": "qemu",
            "argv": list(output.argv),
            "exit_code": output.exit_code,
            "seconds": round(output.seconds, 3),
            "timed_out": output.timed_out,
            "head_start": output.head_start,
            "stderr": output.stderr.decode("utf-8", "replace")[-4000:],
        }
        identity: dict[str, Json] = {
            "runner": {"argv": list(output.argv), "version": qemu_version(output.argv[0])}
        }
        return Execution(output.stream, output.seconds, details, identity,
                         exit_code=output.exit_code, timed_out=output.timed_out)
