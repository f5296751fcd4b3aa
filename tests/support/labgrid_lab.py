"""A labgrid lab on loopback for the board farm tests: a coordinator, exporters and an sshd.

Everything runs from one temporary folder with its own process group, is waited for with
bounded loops (a log line, under a deadline) and is stopped in the order labgrid likes
(exporters, then the coordinator, then sshd). :meth:`Lab.leftovers` lists any process still
naming the lab's folder, so each test module can check with ``ps`` that nothing is left.
The sshd serves the current user with generated keys; an ``ssh`` shim on ``PATH`` points
labgrid's plain ``ssh HOST`` calls at it, without reading or changing ``~/.ssh``.
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import attrs
import pytest

BIN = Path(sys.executable).parent
SSHD = Path("/usr/sbin/sshd")
EXPORTER_HOST = "lab-exporter"  # the name the ssh shim resolves to the loopback sshd


def require_lab() -> None:
    """Skip unless labgrid, sshd and ssh are installed (scripts/setup installs them)."""
    pytest.importorskip("labgrid")
    missing = [tool for tool in ("ssh", "ssh-keygen", "scp") if shutil.which(tool) is None]
    if not SSHD.exists():
        missing.append(str(SSHD))
    if missing:
        pytest.skip(f"the farm tests need {', '.join(missing)} (scripts/setup installs them)")


def wait_for_line(log: Path, pattern: str, proc: subprocess.Popen[bytes],
                  timeout: float) -> re.Match[str]:
    """The first match of ``pattern`` in ``log``; an error if ``proc`` dies or time runs out."""
    deadline = time.monotonic() + timeout
    rx = re.compile(pattern)
    while time.monotonic() < deadline:
        found = rx.search(log.read_text(errors="replace")) if log.exists() else None
        if found:
            return found
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}: "
                               f"{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.05)
    raise TimeoutError(f"{pattern!r} did not appear in {log} within {timeout:g} s")


def spawn(argv: Sequence[str], cwd: Path, log: Path,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """A process in its own session (so its group can be stopped), output to ``log``."""
    with log.open("wb") as out:
        return subprocess.Popen(
            list(argv), cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, start_new_session=True,
            env=os.environ | {"PYTHONUNBUFFERED": "1"} | (env or {}))


def stop(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM, grace: float = 6.0) -> None:
    """Signal the process group, then SIGKILL it after ``grace`` seconds."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, sig)
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(grace)
    except ProcessLookupError:
        proc.wait(grace)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@attrs.define
class SshServer:
    """sshd on 127.0.0.1 with generated keys; ``shim`` is a folder holding an ``ssh`` that
    reaches it as ``lab-exporter`` or ``127.0.0.1`` (labgrid runs plain ``ssh HOST`` for the
    tools it runs on exporter hosts)."""

    root: Path
    port: int = 0
    proc: subprocess.Popen[bytes] | None = None

    @property
    def client_key(self) -> Path:
        return self.root / "client_ed25519"

    @property
    def shim(self) -> Path:
        return self.root / "bin"

    def start(self, attempts: int = 3) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        for key in ("host_ed25519", "client_ed25519"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "hpx-test",
                            "-f", str(self.root / key)], check=True)
        (self.root / "authorized_keys").write_text((self.root / "client_ed25519.pub").read_text())
        if os.geteuid() == 0:
            Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation folder
        for _ in range(attempts):  # a port taken between free_port() and bind: try another
            self.port = free_port()
            self._write_config()
            log = self.root / "sshd.log"
            self.proc = spawn([str(SSHD), "-D", "-e", "-f", str(self.root / "sshd_config")],
                              self.root, log)
            try:
                wait_for_line(log, r"Server listening on 127\.0\.0\.1 port", self.proc, 10.0)
                break
            except RuntimeError:
                continue
        else:
            raise RuntimeError("sshd did not start")
        self._write_shim()

    def _write_config(self) -> None:
        (self.root / "sshd_config").write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\n"
            f"HostKey {self.root}/host_ed25519\nPidFile {self.root}/sshd.pid\n"
            f"AuthorizedKeysFile {self.root}/authorized_keys\n"
            "PermitRootLogin prohibit-password\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
            "Subsystem sftp internal-sftp\n")

    def _write_shim(self) -> None:
        host_key = (self.root / "host_ed25519.pub").read_text().split()
        (self.root / "known_hosts").write_text(
            f"[127.0.0.1]:{self.port} {host_key[0]} {host_key[1]}\n")
        (self.root / "ssh_config").write_text(
            f"Host {EXPORTER_HOST} 127.0.0.1\n  HostName 127.0.0.1\n  Port {self.port}\n"
            f"  User {getpass.getuser()}\n  IdentityFile {self.client_key}\n"
            f"  IdentitiesOnly yes\n  UserKnownHostsFile {self.root}/known_hosts\n"
            "  StrictHostKeyChecking yes\n")
        self.shim.mkdir(exist_ok=True)
        shim = self.shim / "ssh"
        shim.write_text(f'#!/bin/sh\nexec {shutil.which("ssh")} -F {self.root}/ssh_config "$@"\n')
        shim.chmod(0o755)

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)


@attrs.define
class Lab:
    """A coordinator (and its exporters) in ``root``; ``address`` is where clients connect."""

    root: Path
    coordinator: subprocess.Popen[bytes] | None = None
    address: str = ""
    exporters: dict[str, subprocess.Popen[bytes]] = attrs.field(factory=dict)

    def start(self) -> None:
        work = self.root / "coordinator"
        work.mkdir(parents=True, exist_ok=True)  # it writes places.yaml into its cwd
        log = work / "coordinator.log"
        self.coordinator = spawn([str(BIN / "labgrid-coordinator"), "-l", "127.0.0.1:0"],
                                 work, log)
        found = wait_for_line(log, r"listening on ([\d.]+):(\d+)", self.coordinator, 20.0)
        self.address = f"{found[1]}:{found[2]}"

    def start_exporter(self, name: str, config: str) -> subprocess.Popen[bytes]:
        """An exporter called ``name`` with ``config`` (exporter YAML), once it is ready."""
        work = self.root / f"exporter-{name}"
        work.mkdir(parents=True, exist_ok=True)
        (work / "exporter.yaml").write_text(config)
        log = work / f"exporter-{time.monotonic_ns()}.log"
        proc = spawn([str(BIN / "labgrid-exporter"), "-c", self.address, "-n", name,
                      "--hostname", "127.0.0.1", str(work / "exporter.yaml")], work, log)
        wait_for_line(log, r"Exporter ready", proc, 20.0)
        self.exporters[name] = proc
        return proc

    def kill_exporter(self, name: str) -> None:
        stop(self.exporters.pop(name), signal.SIGKILL)

    def kill_coordinator(self) -> None:
        """The coordinator dies; its exporters then end by themselves (status 100)."""
        if self.coordinator is not None:
            stop(self.coordinator, signal.SIGKILL)

    def client(self, *args: str, check: bool = True,
               env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """``labgrid-client -x ADDRESS ARGS`` (the commands docs/board-farm.md shows)."""
        done = subprocess.run([str(BIN / "labgrid-client"), "-x", self.address, *args],
                              capture_output=True, text=True, timeout=60, check=False,
                              env=os.environ | (env or {}))
        if check and done.returncode != 0:
            raise RuntimeError(f"labgrid-client {' '.join(args)}: {done.stderr}")
        return done

    def add_place(self, name: str, tags: dict[str, str], *matches: str) -> None:
        """Create a place as ``labgrid-client create``/``set-tags``/``add-match`` would (the
        coordinator's own calls, through hpx's session: a CLI call costs a second each)."""
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

        from hpx_core.farm.client import farm_client

        client = farm_client(self.address)
        client.rpc("AddPlace", pb.AddPlaceRequest(name=name))
        client.rpc("SetPlaceTags", pb.SetPlaceTagsRequest(placename=name, tags=tags))
        for match in matches:
            client.rpc("AddPlaceMatch", pb.AddPlaceMatchRequest(placename=name, pattern=match))

    def wait_for_resources(self, exporter: str, groups: Sequence[str],
                           timeout: float = 20.0) -> None:
        """Until the coordinator lists every group of ``exporter``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            listed = self.client("resources", check=False).stdout
            if all(f"{exporter}/{group}/" in listed for group in groups):
                return
            time.sleep(0.2)
        raise TimeoutError(f"exporter {exporter} did not offer {list(groups)}")

    def stop(self) -> None:
        for name in list(self.exporters):
            stop(self.exporters.pop(name))
        if self.coordinator is not None:
            stop(self.coordinator)

    def leftovers(self) -> list[str]:
        """Processes that still name this lab's folder (``ps``), for the module's last check."""
        listing = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True,
                                 check=True).stdout
        return [line for line in listing.splitlines()
                if str(self.root) in line and str(os.getpid()) != line.split()[0]]


def network_service(group: str, port: int) -> str:
    """Exporter YAML for a group offering the loopback sshd as a NetworkService."""
    return (f"{group}:\n  NetworkService:\n    address: 127.0.0.1\n    port: {port}\n"
            f"    username: {getpass.getuser()}\n")
