"""A head start for a warm emulated run: QEMU starts on the ELF the same command ran last, while
the pipeline confirms that nothing changed.

A warm ``hpx profile`` spends about half a second in Python (imports, plugins, config, the
stages that find everything ready) before its run starts, and QEMU then runs alone. On an
emulated board a run is a function of QEMU's command line and the ELF's bytes alone (``-icount``,
nothing of the host within reach), so the console script starts, as it starts, the run the same
command made last time, on another core. The run stage takes it over only when its own command
line is the same and the ELF is the same file, unchanged since that run began (size,
modification time, inode); anything else stops it, and QEMU runs as it always does. Nothing a
result holds depends on which way it started; the run's record says which (``head_start``).

What is kept, per command (its arguments, the working folder, the ``HPX_`` environment and the
interpreter), is the board's QEMU machine, CPU and icount shift and the ELF's path. The command
line is built from them by :func:`qemu_command`, with QEMU found on PATH now: a cache file
never names a program to run.

This module imports nothing of hpx but the cache's place and its kept documents, so the
console script can start the run before the command line is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from hpx_core.kept import KeptFolder

QEMU = "qemu-system-arm"
SANDBOX = "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny"
"""QEMU's seccomp filter: no new processes, no privilege changes, no obsolete system calls."""
COMMANDS = ("profile", "run")
"""The commands given a head start: each runs the firmware once on the board it names."""
RUNS = KeptFolder("head-starts", keep=64)
SWITCH = "HPX_HEAD_START"
"""``HPX_HEAD_START=off`` (or 0, no, false): no run starts ahead (nor does one on one core)."""
OFF = ("0", "off", "no", "false")
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


def qemu_command(qemu: str, machine: str, cpu: str, icount_shift: int, elf: Path) -> list[str]:
    """QEMU's command line for one run: no display, UART on stdout, icount, and nothing of the
    host within the firmware's reach."""
    return [qemu, "-machine", machine, "-cpu", cpu, "-display", "none", "-monitor", "none",
            "-serial", "stdio", "-nic", "none", "-no-reboot", "-sandbox", SANDBOX,
            "-icount", f"shift={icount_shift},sleep=off", "-kernel", str(elf)]


class Launched:
    """One QEMU process, the files its stdout and stderr go to and when it started; used as a
    context manager, it leaves no process running and closes the files."""

    def __init__(self, argv: Sequence[str],
                 signature: tuple[int, int, int] | None = None) -> None:
        """``signature``: the ELF's, as it was when a run started ahead began."""
        self.argv, self.signature = list(argv), signature
        # Files the object owns past this call: stop() closes them.
        self._files = contextlib.ExitStack()
        self.out: IO[bytes] = self._files.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
        self.err: IO[bytes] = self._files.enter_context(tempfile.TemporaryFile())  # noqa: SIM115
        self.started = time.perf_counter()
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=self.out,
                                         stderr=self.err)
        except BaseException:
            self._files.close()
            raise

    def __enter__(self) -> Launched:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._files.close()


_lock = threading.Lock()
_pending: Launched | None = None
_key: str | None = None  # the command's, in the console script; None: nothing is kept


def start(args: Sequence[str]) -> None:
    """In the console script, as it starts: note the command and, when it ran QEMU last time
    on an ELF still there, start that run again."""
    global _key, _pending
    try:
        _key = command_key(args) if args and args[0] in COMMANDS else None
        if _key is None or os.environ.get(SWITCH, "").lower() in OFF or usable_cores() < 2:
            return
        found = shutil.which(QEMU)
        kept = _kept_run(RUNS.load(_key))
        if found is None or kept is None:
            return
        machine, cpu, shift, elf = kept
        signature = file_signature(elf)
        if signature is not None:
            _pending = Launched(qemu_command(found, machine, cpu, shift, elf), signature)
    except OSError:  # no working folder, no temporary files, QEMU gone: the run starts later
        _pending = None


def take(argv: Sequence[str], elf: Path) -> Launched | None:
    """The run started ahead when it is this one (the same command line, the ELF unchanged
    since it started); otherwise it is stopped and None returned."""
    global _pending
    with _lock:
        early, _pending = _pending, None
    if early is None:
        return None
    if list(argv) == early.argv and file_signature(elf) == early.signature:
        return early
    early.stop()
    return None


def cancel() -> None:
    """Stop a run started ahead that no stage took (the command failed, or ran no firmware)."""
    global _pending
    with _lock:
        early, _pending = _pending, None
    if early is not None:
        early.stop()


def remember(machine: str, cpu: str, icount_shift: int, elf: Path) -> None:
    """After a run that ended as the firmware asked: what the console script's command ran, for
    its next time (the first run of the process only)."""
    global _key
    with _lock:
        key, _key = _key, None
    if key is not None:
        RUNS.store(key, {"machine": machine, "cpu": cpu, "icount_shift": icount_shift,
                         "elf": str(elf if elf.is_absolute() else elf.absolute())})


def usable_cores() -> int:
    """The cores this process may run on: with one, a run started ahead would only take turns
    with the stages, and take the compiler's core when the guess is wrong."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def command_key(args: Sequence[str]) -> str:
    """What names a command: its arguments, the folder it ran in, the ``HPX_`` environment (but
    the switch) and the interpreter (a run of another installation is another command)."""
    facts = [list(args), str(Path.cwd()), sys.executable,
             sorted((k, v) for k, v in os.environ.items()
                    if k.startswith("HPX_") and k != SWITCH)]
    return hashlib.sha256(json.dumps(facts).encode("utf-8")).hexdigest()


def file_signature(path: Path) -> tuple[int, int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns, stat.st_ino


def _kept_run(document: Any) -> tuple[str, str, int, Path] | None:
    """The kept run's machine, CPU, icount shift and ELF, when each is what hpx writes."""
    if not isinstance(document, dict):
        return None
    machine, cpu, shift, elf = (document.get(k) for k in ("machine", "cpu", "icount_shift",
                                                           "elf"))
    if not (isinstance(machine, str) and _NAME.fullmatch(machine) and isinstance(cpu, str)
            and _NAME.fullmatch(cpu) and type(shift) is int and 0 <= shift <= 10
            and isinstance(elf, str) and Path(elf).is_absolute()):
        return None
    return machine, cpu, shift, Path(elf)
