"""Run a firmware ELF on an emulated board under QEMU and capture its stream.

The UART is QEMU's stdout, kept byte for byte; ``-icount`` makes counts exact and repeatable.
Firmware gets no way to the host: no semihosting (a ``BKPT 0xAB`` faults like any other
breakpoint, and the recorder names it), no network (the boards' Ethernet controller has no
peer; QEMU's default would give it a user-mode network that reaches the host), and QEMU runs
under its own seccomp sandbox, which denies spawning processes. The firmware ends the run
with a system reset request, which ``-no-reboot`` turns into QEMU's exit; its verdict is the
stream's END record, as on a board. QEMU's own exit status says only whether QEMU failed.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import attrs

from hpx_core.boards import Board
from hpx_core.build.elfinfo import load_segments
from hpx_core.contract import Json
from hpx_core.errors import RunError, ToolError
from hpx_core.log import get_logger
from hpx_core.run.runner import Execution
from hpx_core.tool_version import version_line

log = get_logger(__name__)

QEMU = "qemu-system-arm"
SANDBOX = "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny"
"""QEMU's seccomp filter: no new processes, no privilege changes, no obsolete system calls."""
NO_PEER = b"qemu-system-arm: warning: nic lan9118.0 has no peer\n"
"""What QEMU says of the boards' Ethernet controller without a network: expected, dropped."""


@attrs.frozen
class RunOutput:
    """What one emulator run produced."""

    argv: tuple[str, ...]
    stream: bytes  # the UART stream (wire records), raw
    stderr: bytes
    exit_code: int | None  # None when it was stopped at the timeout
    seconds: float
    timed_out: bool


def qemu_argv(board: Board, elf: Path, qemu: str = QEMU) -> list[str]:
    """The QEMU command line for ``board``: no display, UART on stdout, icount, and nothing
    of the host within the firmware's reach."""
    if board.qemu is None:
        raise RunError(
            f"board {board.name} is not an emulated board",
            "run silicon boards with the probe runner",
        )
    spec = board.qemu
    return [
        qemu,
        "-machine",
        spec.machine,
        "-cpu",
        spec.cpu,
        "-display",
        "none",
        "-monitor",
        "none",
        "-serial",
        "stdio",
        "-nic",
        "none",
        "-no-reboot",
        "-sandbox",
        SANDBOX,
        "-icount",
        f"shift={spec.icount_shift},sleep=off",
        "-kernel",
        str(elf),
    ]


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


def run_on_qemu(board: Board, elf: Path, *, timeout: float = 60.0) -> RunOutput:
    """Run ``elf`` on ``board`` until it exits or ``timeout`` seconds pass.

    A timeout is not raised here: the partial stream is returned (``timed_out``) so the caller
    can keep it in a failed bundle, then raise :class:`RunError`.
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
    started = time.perf_counter()
    with subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    ) as proc:
        try:
            stream, stderr = proc.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()
            stream, stderr = proc.communicate()
            timed_out = True
    seconds = time.perf_counter() - started
    exit_code = None if timed_out else proc.returncode
    log.info("qemu", board=board.name, exit_code=exit_code, seconds=round(seconds, 3))
    return RunOutput(tuple(argv), stream, stderr.replace(NO_PEER, b""), exit_code, seconds,
                     timed_out)


def qemu_version(argv0: str) -> str:
    """The first line of ``qemu-system-arm --version`` (for provenance), kept in the cache:
    asked only as a run starts, after every check."""
    return version_line(argv0, keep=True) or "unknown"


@attrs.frozen
class QemuRunner:
    """The emulated boards' runner: one QEMU process per run, ``-icount`` for exact counts."""

    board: Board
    timeout: float = 600.0

    def check(self) -> None:
        if not shutil.which(QEMU):
            raise ToolError(f"{QEMU} is not on PATH",
                            "install it (Debian: apt-get install qemu-system-arm)")

    def execute(self, elf: Path) -> Execution:
        output = run_on_qemu(self.board, elf, timeout=self.timeout)
        details: dict[str, Json] = {
            "runner": "qemu",
            "argv": list(output.argv),
            "exit_code": output.exit_code,
            "seconds": round(output.seconds, 3),
            "timed_out": output.timed_out,
            "stderr": output.stderr.decode("utf-8", "replace")[-4000:],
        }
        identity: dict[str, Json] = {
            "runner": {"argv": list(output.argv), "version": qemu_version(output.argv[0])}
        }
        return Execution(output.stream, output.seconds, details, identity,
                         exit_code=output.exit_code, timed_out=output.timed_out)
