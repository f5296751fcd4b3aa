"""A board farm of two emulated places on loopback, run by real ``hpx`` processes.

A labgrid coordinator and two exporters run on loopback, each offering an sshd on 127.0.0.1
as the ``NetworkService`` of one place for qemu-m55 (``qemu-a`` on exporter lab1, ``qemu-b`` on
lab2), tagged ``lab=loopback``. :func:`qemu_farm` starts it and, when the block ends, stops it
and checks with ``ps`` that nothing it started is left (no lab process, no QEMU hpx started on
the "exporter host": the sshd's sessions keep their temporary folders in the lab, so QEMUs of
other labs on the same machine are not counted).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import attrs
from emulated_firmware import require_tools
from labgrid_lab import Lab, SshServer, network_service, require_lab

from hpx_core.farm.client import close_clients, farm_client

HPX = Path(sys.executable).parent / "hpx"
EXPORTERS = {"lab1": "qemu-a", "lab2": "qemu-b"}
TAGS = {"board": "qemu-m55", "lab": "loopback"}


@attrs.frozen
class Farm:
    """The running lab, its sshd, and a folder for what the tests' ``hpx`` runs write."""

    lab: Lab
    ssh: SshServer
    root: Path

    def env(self, **more: str) -> dict[str, str]:
        return {**os.environ, "LG_COORDINATOR": self.lab.address, "COLUMNS": "200", **more}

    def hpx(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(HPX), *args], capture_output=True, text=True, timeout=600,
                              cwd=self.root, env=self.env(**env), check=False)

    def start_hpx(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        """``hpx ARGS`` in the background, its output in ``ROOT/NAME.log``; Ctrl-C reaches it
        as at a terminal even when the tests themselves run with SIGINT ignored (a shell's
        background job), which hpx would otherwise inherit."""
        # A handled signal is reset to its default in the child (an ignored one stays ignored).
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            with (self.root / f"{name}.log").open("wb") as log:
                return subprocess.Popen([str(HPX), *args], cwd=self.root, env=self.env(),
                                        stdout=log, stderr=subprocess.STDOUT)
        finally:
            signal.signal(signal.SIGINT, previous)

    def output(self, name: str) -> str:
        return (self.root / f"{name}.log").read_text(errors="replace")

    def exit_code(self, proc: subprocess.Popen[bytes], name: str, seconds: float) -> int:
        """``proc``'s exit code; a failure showing the end of its log if it runs on."""
        try:
            return proc.wait(seconds)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"hpx ({name}) still runs after {seconds:g} s; its log "
                                 f"ends:\n{self.output(name)[-3000:]}") from None

    def holder(self, place: str) -> str | None:
        return farm_client(self.lab.address).places()[place].holder

    def far_qemus(self) -> list[str]:
        return far_qemus(self.ssh)

    def until(self, what: str, check: Callable[[], bool], timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            assert time.monotonic() < deadline, f"{what} within {timeout:g} s"
            time.sleep(0.1)


def far_qemus(ssh: SshServer) -> list[str]:
    """QEMU processes hpx started on the "exporter host" (this machine, through this lab's
    sshd, whose sessions keep their temporary folders in ``ssh.far_tmp``)."""
    listing = subprocess.run(["ps", "-ww", "-eo", "pid,args"], capture_output=True, text=True,
                             check=True).stdout
    return [line for line in listing.splitlines()
            if "qemu-system-arm" in line and f"{ssh.far_tmp}/hpx-run." in line
            and "timeout" not in line]


@contextmanager
def qemu_farm(root: Path) -> Iterator[Farm]:
    """The two-place lab in ``root`` (skips when labgrid, sshd or the tools are missing)."""
    require_lab()
    require_tools()
    ssh, lab = SshServer(root / "ssh"), Lab(root / "lab")
    try:
        ssh.start()
        lab.start()
        for exporter, group in EXPORTERS.items():
            lab.start_exporter(exporter, network_service(group, ssh.port))
            lab.wait_for_resources(exporter, [group])
            lab.add_place(group, TAGS, f"{exporter}/{group}/NetworkService")
        yield Farm(lab, ssh, root)
    finally:
        close_clients()
        lab.stop()
        ssh.stop()
    assert lab.leftovers() == [] and ssh.root.exists()
    assert far_qemus(ssh) == []


def bundle_in(folder: Path) -> Path:
    (bundle,) = [p for p in folder.iterdir() if not p.name.startswith(".")]
    return bundle


def run_json(bundle: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((bundle / "run.json").read_text())
    return data
