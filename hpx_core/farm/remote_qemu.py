"""Run QEMU on a place's exporter host: the ELF goes there, the UART stream comes back.

The place offers a ``NetworkService`` (the exporter host's sshd). labgrid's ``SSHDriver`` logs
in once per held place (one ssh ControlMaster) and copies the ELF; hpx then runs the command
line it runs locally (:func:`hpx_core.run.qemu.qemu_argv`) under ``timeout`` on the far side
and reads its stdout byte for byte while it runs. A lost exporter or coordinator (``trouble``)
or Ctrl-C stops the far QEMU at once and keeps what had arrived.
"""

from __future__ import annotations

import contextlib
import os
import re
import selectors
import shlex
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath
from typing import IO, Any

import attrs

from hpx_core.boards import Board
from hpx_core.contract import Json
from hpx_core.errors import FarmError
from hpx_core.farm.address import check_address
from hpx_core.run.qemu import QEMU, check_load_segments, qemu_argv
from hpx_core.run.runner import Execution, StreamStoppedError

Trouble = Callable[[], str | None]
CHECK_EVERY = 1.0  # seconds between asking the coordinator whether the place is still ours
MARGIN = 30.0  # how much longer than the far ``timeout`` hpx waits for the far side to end
TIMED_OUT = 124  # ``timeout``'s status when it stopped the command
INTERRUPTED = "the run was interrupted"
_EXIT = re.compile(rb"hpx-exit (\d+)\n?\Z")


@attrs.frozen
class Ended:
    """How a far run ended: its bytes, and a cause when hpx stopped it (else None)."""

    stdout: bytes
    stderr: bytes
    stopped: str | None


@attrs.define
class RemoteQemu:
    """QEMU on one exporter host, through an active ``SSHDriver``."""

    ssh: Any
    service: Mapping[str, Any]  # the NetworkService's address, port, username
    version: str = "unknown"

    @classmethod
    def connect(cls, target: Any, service: Mapping[str, Any], place: str,
                ssh_key: Path | None) -> RemoteQemu:
        """Log in to the place's exporter host and check that it has QEMU."""
        from labgrid.driver import SSHDriver

        check_address(service.get("address"), f"place {place}")
        key = str(ssh_key.expanduser()) if ssh_key else ""
        driver = SSHDriver(target, name=None, keyfile=key, connection_timeout=15.0)
        where = f"{service.get('username')}@{service.get('address')}:{service.get('port')}"
        try:
            target.activate(driver)
        except Exception as error:  # labgrid raises plain Exception and ExecutionError here
            raise FarmError(f"cannot log in to {where}, the exporter host of place {place} "
                            f"({error})", "check the place's NetworkService and the key "
                            "(farm.ssh_key or --ssh-key)") from None
        remote = cls(driver, service)
        found = remote.run(f"{QEMU} --version", timeout=30.0)
        if found.returncode != 0:
            raise FarmError(f"{QEMU} does not run on {where}, the exporter host of place "
                            f"{place}", "install it there (Debian: apt-get install "
                            "qemu-system-arm)")
        remote.version = (found.stdout.decode(errors="replace").splitlines() or ["unknown"])[0]
        return remote

    def argv(self, command: str) -> list[str]:
        """The ssh command line that runs ``command`` (a shell line) on the exporter host."""
        user = self.ssh.username or self.service.get("username", "")
        return ["ssh", "-x", *self.ssh.ssh_prefix, "-p", str(self.service.get("port", 22)),
                "-l", str(user), "--", str(self.service["address"]), command]

    def run(self, command: str, *, timeout: float) -> subprocess.CompletedProcess[bytes]:
        """``command`` on the exporter host, waited for at most ``timeout`` seconds."""
        try:
            return subprocess.run(self.argv(command), capture_output=True, timeout=timeout,
                                  stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired as late:
            return subprocess.CompletedProcess(late.cmd, 255, b"", b"timed out")

    # one firmware run ---------------------------------------------------------------------------
    def execute(self, board: Board, elf: Path, *, timeout: float, trouble: Trouble) -> Execution:
        """Copy ``elf`` over, run it under QEMU there, bring the stream back."""
        check_load_segments(board, elf)
        made = self.run("mktemp -d -t hpx-run.XXXXXX", timeout=30.0)
        folder = made.stdout.decode().strip()
        if made.returncode != 0 or not folder:
            raise StreamStoppedError(f"cannot make a folder on the exporter host "
                                     f"({made.stderr.decode(errors='replace').strip()})",
                                     "check the exporter host's disk and /tmp", b"")
        try:
            return self._execute(board, elf, PurePosixPath(folder), timeout, trouble)
        finally:
            self.run(f"rm -rf {shlex.quote(folder)}", timeout=30.0)

    def _execute(self, board: Board, elf: Path, folder: PurePosixPath, timeout: float,
                 trouble: Trouble) -> Execution:
        remote_elf = folder / elf.name
        try:
            self.ssh.put(str(elf), str(remote_elf))
        except Exception as error:  # labgrid's ExecutionError
            raise StreamStoppedError(f"copying {elf.name} to the exporter host failed "
                                     f"({error})", "check the exporter host", b"") from None
        argv = qemu_argv(board, Path(str(remote_elf)), QEMU)
        limit = max(1, int(timeout + 0.999))
        line = (f"cd {shlex.quote(str(folder))} && "
                f"{{ timeout -k 5 {limit} {shlex.join(argv)} & echo $! > pid; wait $!; "
                f'echo "hpx-exit $?" >&2; }}')
        started = time.perf_counter()
        out, err = bytearray(), bytearray()  # kept by the caller: an interruption keeps them
        with subprocess.Popen(self.argv(line), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) as proc:
            try:
                ended = _follow(proc, time.monotonic() + limit + MARGIN, trouble, out, err)
            except KeyboardInterrupt:
                ended = Ended(bytes(out), bytes(err), INTERRUPTED)
            if ended.stopped is not None:
                ended = self._stop(proc, folder, out, err, ended.stopped)
        seconds = time.perf_counter() - started
        return self._judge(argv, ended, seconds, proc.returncode)

    def _stop(self, proc: subprocess.Popen[bytes], folder: PurePosixPath, out: bytearray,
              err: bytearray, cause: str) -> Ended:
        """Stop the far QEMU (then the local ssh) and collect what was still under way."""
        self.run(f"kill -TERM $(cat {shlex.quote(str(folder / 'pid'))}) 2>/dev/null",
                 timeout=10.0)
        with contextlib.suppress(KeyboardInterrupt):
            _follow(proc, time.monotonic() + 5.0, lambda: None, out, err)
        if proc.poll() is None:
            proc.kill()
        proc.wait(10.0)
        return Ended(bytes(out), bytes(err), cause)

    def _judge(self, argv: list[str], ended: Ended, seconds: float,
               ssh_status: int | None) -> Execution:
        marker = _EXIT.search(ended.stderr)
        stderr = ended.stderr[: marker.start()] if marker else ended.stderr
        if ended.stopped == INTERRUPTED:
            raise StreamStoppedError(INTERRUPTED, "the far QEMU was stopped", ended.stdout,
                                     interrupted=True)
        if ended.stopped is not None:
            raise StreamStoppedError(ended.stopped, "the far QEMU was stopped",
                                     ended.stdout)
        if marker is None:
            tail = stderr.decode(errors="replace").strip()[-300:]
            raise StreamStoppedError(
                f"the connection to the exporter host ended during the run "
                f"(ssh status {ssh_status}{': ' + tail if tail else ''})",
                "check the exporter host and the network", ended.stdout)
        status = int(marker[1])
        timed_out = status == TIMED_OUT
        details: dict[str, Json] = {
            "runner": "qemu", "argv": argv, "exit_code": None if timed_out else status,
            "seconds": round(seconds, 3), "timed_out": timed_out,
            "stderr": stderr.decode("utf-8", "replace")[-4000:],
            "host": str(self.service["address"]),
        }
        identity: dict[str, Json] = {"runner": {"argv": argv, "version": self.version}}
        return Execution(ended.stdout, seconds, details, identity,
                         exit_code=None if timed_out else status, timed_out=timed_out)


def _follow(proc: subprocess.Popen[bytes], deadline: float, trouble: Trouble,
            out: bytearray, err: bytearray) -> Ended:
    """Read the far side's stdout into ``out`` and stderr into ``err`` until both end, the
    deadline passes, or ``trouble`` names a cause (asked every :data:`CHECK_EVERY` s)."""
    streams: dict[int, tuple[IO[bytes], bytearray]] = {}
    for stream, sink in ((proc.stdout, out), (proc.stderr, err)):
        if stream is not None and not stream.closed:
            streams[stream.fileno()] = (stream, sink)
    next_check = time.monotonic() + CHECK_EVERY
    with selectors.DefaultSelector() as selector:
        for stream, _sink in streams.values():
            selector.register(stream, selectors.EVENT_READ)
        while streams:
            for key, _ in selector.select(timeout=0.2):
                chunk = os.read(key.fd, 65536)
                if chunk:
                    streams[key.fd][1].extend(chunk)
                else:
                    selector.unregister(key.fileobj)
                    del streams[key.fd]
            now = time.monotonic()
            if streams and now >= deadline:
                return Ended(bytes(out), bytes(err),
                             "the exporter host did not end the run within its timeout")
            if streams and now >= next_check:
                next_check = now + CHECK_EVERY
                cause = trouble()
                if cause is not None:
                    return Ended(bytes(out), bytes(err), cause)
    proc.wait(30.0)
    return Ended(bytes(out), bytes(err), None)
