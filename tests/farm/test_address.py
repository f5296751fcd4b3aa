"""An exporter host's address is a host for ssh, never an option.

The address comes from the coordinator. One that starts with ``-`` (``-oProxyCommand=...``)
would make ssh run a command on this machine: hpx refuses it before anything connects, and the
command lines it builds put ``--`` before the destination in any case. The checks run the real
``ssh`` and a real labgrid target; a file the hostile command would make shows whether it ran.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from labgrid import Target

from hpx_core.errors import FarmError
from hpx_core.farm import probe_driver
from hpx_core.farm.address import check_address
from hpx_core.farm.remote_qemu import RemoteQemu


def hostile(canary: Path) -> str:
    return f"-oProxyCommand=touch {canary}"


class _Driver:
    """What RemoteQemu reads of labgrid's SSHDriver to build a command line."""

    username = "hpx"
    ssh_prefix = ("-F", "/dev/null", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5")


@pytest.mark.parametrize("address", ["127.0.0.1", "lab1", "lab-1.example.org", "::1",
                                     "fe80::1%eth0", "[2001:db8::7]"])
def test_host_names_and_ip_addresses_are_accepted(address: str) -> None:
    assert check_address(address, "place qemu-a") == address


@pytest.mark.parametrize("address", ["-oProxyCommand=id", "-p2222", "lab1 -v", "lab1;id",
                                     "", None, 22])
def test_anything_else_is_refused_in_one_error(address: object) -> None:
    with pytest.raises(FarmError) as refused:
        check_address(address, "place qemu-a")
    assert "place qemu-a" in refused.value.message
    assert "\n" not in refused.value.message
    assert refused.value.hint


def test_a_place_with_a_hostile_address_is_refused_before_ssh_runs(tmp_path: Path) -> None:
    canary = tmp_path / "ran"
    service = {"address": hostile(canary), "port": 22, "username": "hpx"}
    with pytest.raises(FarmError, match="place qemu-a offers"):
        RemoteQemu.connect(Target("qemu-a"), service, "qemu-a", None)
    assert not canary.exists()


def test_the_ssh_command_line_ends_options_before_the_destination(tmp_path: Path) -> None:
    """Even an address that got past the check reaches ssh as a host name it cannot resolve."""
    if shutil.which("ssh") is None:
        pytest.skip("no ssh client")
    canary = tmp_path / "ran"
    remote = RemoteQemu(_Driver(), {"address": hostile(canary), "port": 22})
    argv = remote.argv("true")
    assert argv[argv.index("--") + 1] == hostile(canary)
    done = remote.run("true", timeout=60.0)
    assert done.returncode == 255
    assert not canary.exists()


def test_a_probe_on_a_hostile_host_is_refused_before_ssh_runs(tmp_path: Path) -> None:
    canary = tmp_path / "ran"
    target = Target("apollo")
    probe_driver.HpxProbe(target, name=None, host=hostile(canary), unique_id="0001")
    driver = probe_driver.HpxPyOCDDriver(target, name=None)
    with pytest.raises(FarmError, match="the probe 0001 offers"):
        target.activate(driver)
    assert not canary.exists()
