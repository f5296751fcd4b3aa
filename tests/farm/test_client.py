"""The coordinator client: where it connects, and what a user sees when it cannot.

labgrid is optional: without it, naming a place is an error that says how to install it, and
nothing else about hpx changes. The missing package is real here (its modules are made
unimportable for the test), as is the coordinator nobody listens for.
"""

from __future__ import annotations

import socket
import sys

import pytest

from hpx_core.boards import get_board
from hpx_core.cli import main
from hpx_core.config import load_config
from hpx_core.config.schema import FarmSection
from hpx_core.errors import ConfigError, FarmError
from hpx_core.farm.client import DEFAULT_COORDINATOR, FarmClient, coordinator_address
from hpx_core.pipeline.doctor import run_doctor
from hpx_core.plugins import load_registry
from hpx_core.run.qemu import QemuRunner
from hpx_core.runners import runner_for

QEMU = get_board("qemu-m55")


@pytest.fixture
def no_labgrid(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "labgrid" or m.startswith("labgrid.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "labgrid", None)  # import labgrid raises ImportError


@pytest.mark.usefixtures("no_labgrid")
def test_a_place_without_labgrid_says_how_to_install_it() -> None:
    with pytest.raises(FarmError) as caught:
        runner_for(QEMU, place="qemu-1", farm=FarmSection())
    assert caught.value.message.startswith("board farms need labgrid, which is not installed")
    assert caught.value.hint == 'install it: pip install "hpx-core[labgrid]"'
    assert isinstance(runner_for(QEMU), QemuRunner)  # without a place nothing changes


@pytest.mark.usefixtures("no_labgrid")
def test_hpx_places_without_labgrid(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["places"]) == 1
    err = capsys.readouterr().err
    assert "error: board farms need labgrid" in err
    assert 'hint: install it: pip install "hpx-core[labgrid]"' in err
    assert "Traceback" not in err


def test_doctor_reports_labgrid_as_optional() -> None:
    pytest.importorskip("labgrid")
    report = run_doctor(load_registry(), toolchain="arm-none-eabi-gcc", emulated=None)
    (check,) = [c for c in report.checks if c.name == "labgrid"]
    assert check.ok and not check.required and check.detail.endswith("(board farms)")


def test_the_coordinator_comes_from_the_config_then_lg_coordinator(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LG_COORDINATOR", raising=False)
    assert coordinator_address(None) == DEFAULT_COORDINATOR == "127.0.0.1:20408"
    monkeypatch.setenv("LG_COORDINATOR", "lab.example.com:20408")
    assert coordinator_address(None) == "lab.example.com:20408"
    assert coordinator_address("farm.example.com:1234") == "farm.example.com:1234"


def test_the_farm_section_and_place_are_config(write_yaml) -> None:  # type: ignore[no-untyped-def]
    path = write_yaml("target:\n  place: evb-1\nfarm:\n  coordinator: lab:20408\n"
                      "  wait: 30\n  ssh_key: keys/lab_ed25519\n")
    config, _ = load_config(path)
    assert config.target.place == "evb-1"
    assert config.farm.coordinator == "lab:20408" and config.farm.wait == 30
    assert config.farm.ssh_key == path.parent / "keys" / "lab_ed25519"  # beside the file
    with pytest.raises(ConfigError, match=r"farm\.wait.*at least 0"):
        load_config(write_yaml("farm:\n  wait: -1\n", "bad.yaml"))


def test_a_coordinator_nobody_listens_for_is_named() -> None:
    pytest.importorskip("labgrid")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{taken.getsockname()[1]}"  # bound, never listening
        with pytest.raises(FarmError) as caught:
            FarmClient(address)
    assert caught.value.message == f"cannot reach the labgrid coordinator at {address}"
    assert "LG_COORDINATOR" in caught.value.hint


def test_hpx_places_json_on_an_unreachable_coordinator(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("labgrid")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        assert main(["places", "--json", "--coordinator", address]) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"cannot reach the labgrid coordinator at {address}" in err
