"""Places as hpx sees them (``hpx places``), and holding one (the lease) against a real lab.

The lab's places are made with the ``labgrid-client`` commands docs/board-farm.md shows, by
two identities: this process's, and ``ci-7/alice`` holding one place the way a colleague's
``labgrid-client acquire`` would. The last test stops the coordinator in the middle of a run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from emulated_firmware import fixture_build, require_tools
from labgrid_lab import Lab, SshServer, network_service, require_lab

from hpx_core.boards import get_board
from hpx_core.cli import main
from hpx_core.config.schema import FarmSection
from hpx_core.errors import FarmError
from hpx_core.farm.client import close_clients, farm_client
from hpx_core.farm.lease import Lease
from hpx_core.farm.places import PlaceChoice, places_for
from hpx_core.runners import runner_for

ALICE = {"LG_USERNAME": "alice", "LG_HOSTNAME": "ci-7"}
QEMU = get_board("qemu-m55")
EVB = get_board("apollo510_evb")


@attrs.frozen
class PlacesLab:
    lab: Lab
    ssh: SshServer
    root: Path

    @property
    def farm(self) -> FarmSection:
        return FarmSection(coordinator=self.lab.address, ssh_key=self.ssh.client_key)


def exporter_yaml(port: int) -> str:
    return network_service("qemu-1", port) + network_service("qemu-2", port) + (
        'evb-1:\n  location: rack 2\n  HpxProbe:\n    host: "{{ hostname }}"\n'
        '    unique_id: "000260112345"\n')


@pytest.fixture(scope="module")
def places_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlacesLab]:
    require_lab()
    root = tmp_path_factory.mktemp("places")
    ssh, lab = SshServer(root / "ssh"), Lab(root / "lab")
    try:
        ssh.start()
        lab.start()
        lab.start_exporter("lab1", exporter_yaml(ssh.port))
        lab.wait_for_resources("lab1", ["qemu-1", "qemu-2", "evb-1"])
        # evb-1 as docs/board-farm.md sets a place up; the others through the same calls
        # without a labgrid-client process each (a second apiece)
        lab.client("-p", "evb-1", "create")
        lab.client("-p", "evb-1", "set-tags", "board=apollo510_evb", "owner=ml-team")
        lab.client("-p", "evb-1", "add-match", "lab1/evb-1/HpxProbe")
        lab.client("-p", "evb-1", "set-comment", "Apollo510 EVB, J-Link OB")
        for place, tags, match in (
            ("qemu-1", {"board": "qemu-m55"}, "lab1/qemu-1/NetworkService"),
            ("qemu-2", {"board": "qemu-m55"}, "lab1/qemu-2/NetworkService"),
            ("nameless", {"rack": "2"}, "lab1/qemu-1/NetworkService"),
            ("odd", {"board": "pdp11"}, "lab1/qemu-1/NetworkService"),
            ("wrong", {"board": "qemu-m55"}, "lab1/evb-1/HpxProbe"),
            ("down", {"board": "qemu-m55"}, "lab9/qemu-9/NetworkService"),
        ):
            lab.add_place(place, tags | {"owner": "ml-team"}, match)
        lab.client("-p", "qemu-2", "acquire", env=ALICE)
        yield PlacesLab(lab, ssh, root)
    finally:
        close_clients()
        lab.stop()
        ssh.stop()
    assert lab.leftovers() == []


def hpx_places(places_lab: PlacesLab, *args: str,
               capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["places", "--coordinator", places_lab.lab.address, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_hpx_places_lists_the_usable_places_with_holders_and_hosts(
        places_lab: PlacesLab, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = hpx_places(places_lab, "--json", capsys=capsys)
    assert code == 0
    rows = {row["place"]: row for row in json.loads(out)}
    assert sorted(rows) == ["evb-1", "qemu-1", "qemu-2"]
    assert rows["qemu-1"]["status"] == "free" and rows["qemu-1"]["held_by"] is None
    assert rows["qemu-2"]["status"] == "held by ci-7/alice"
    assert rows["evb-1"]["board"] == "apollo510_evb"
    assert rows["evb-1"]["hosts"] == ["lab1 (127.0.0.1)"]  # {{ hostname }} of the exporter
    assert rows["evb-1"]["comment"] == "Apollo510 EVB, J-Link OB"
    assert rows["evb-1"]["tags"] == {"board": "apollo510_evb", "owner": "ml-team"}
    assert rows["evb-1"]["resources"][0]["params"]["unique_id"] == "000260112345"
    code, out, _ = hpx_places(places_lab, "--board", "qemu-m55", capsys=capsys)
    assert code == 0
    assert "qemu-1" in out and "held by ci-7/alice" in out and "evb-1" not in out
    assert "owner=ml-team" in out


def test_hpx_places_all_says_why_a_place_is_not_usable(
        places_lab: PlacesLab, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = hpx_places(places_lab, "--all", "--json", capsys=capsys)
    assert code == 0
    why = {row["place"]: row["status"] for row in json.loads(out) if not row["usable"]}
    assert why == {
        "nameless": "place nameless has no board tag",
        "odd": "place odd is for board pdp11, which hpx does not know",
        "wrong": "place wrong matches no NetworkService resource, which runs qemu-m55",
        "down": "place down has no NetworkService resource now",
    }


def test_places_for_a_board_are_what_a_scheduler_spreads_over(places_lab: PlacesLab) -> None:
    found = places_for(farm_client(places_lab.lab.address), QEMU)
    assert [(p.name, p.holder) for p in found] == [("qemu-1", None), ("qemu-2", "ci-7/alice")]
    assert all(p.tags["board"] == "qemu-m55" for p in found)
    assert [p.name for p in places_for(farm_client(places_lab.lab.address), EVB)] == ["evb-1"]


@pytest.mark.parametrize(("place", "message", "hint"), [
    ("evb-1", "place evb-1 is for board apollo510_evb, not qemu-m55",
     "`hpx places --board qemu-m55`"),
    ("nameless", "place nameless has no board tag",
     "labgrid-client -p nameless set-tags board=qemu-m55"),
    ("wrong", "place wrong matches no NetworkService resource, which runs qemu-m55",
     "add-match EXPORTER/GROUP/NetworkService"),
    ("nope", "has no place nope", "places there: down, evb-1, nameless"),
])
def test_a_place_that_cannot_run_the_board_is_refused_before_anything_is_held(
        places_lab: PlacesLab, place: str, message: str, hint: str) -> None:
    runner = runner_for(QEMU, place=place, farm=places_lab.farm)
    with pytest.raises(FarmError) as caught:
        runner.check()
    assert message in caught.value.message and hint in caught.value.hint


def reservations(places_lab: PlacesLab) -> str:
    return places_lab.lab.client("reservations").stdout


def test_a_lease_holds_the_place_and_releases_it(places_lab: PlacesLab) -> None:
    client = farm_client(places_lab.lab.address)
    with Lease(client, "qemu-1", QEMU, wait=5.0) as state:
        assert state.holder == client.identity
        assert "acquired" in reservations(places_lab)
    assert client.places()["qemu-1"].holder is None
    assert reservations(places_lab).strip() == ""


def test_a_busy_place_fails_at_once_or_after_the_wait(places_lab: PlacesLab) -> None:
    client = farm_client(places_lab.lab.address)
    with pytest.raises(FarmError) as caught, Lease(client, "qemu-2", QEMU, wait=0):
        pass
    assert caught.value.message == "place qemu-2 is busy (held by ci-7/alice)"
    notes: list[str] = []
    started = time.monotonic()
    waiting = Lease(client, "qemu-2", QEMU, wait=1.5, notify=notes.append, poll=0.2)
    with pytest.raises(FarmError) as caught, waiting:
        pass
    assert 1.5 <= time.monotonic() - started < 10
    assert caught.value.message == "place qemu-2 is still busy (held by ci-7/alice) after 1.5 s"
    assert notes == ["place qemu-2 is busy (held by ci-7/alice); waiting up to 1.5 s for it "
                     "(--no-wait fails at once)"]
    assert reservations(places_lab).strip() == ""  # the queued reservation was cancelled


def test_any_place_for_the_board_is_the_free_one(places_lab: PlacesLab) -> None:
    client = farm_client(places_lab.lab.address)
    with Lease(client, PlaceChoice.parse("any"), QEMU, wait=5.0) as state:
        assert state.name == "qemu-1"  # qemu-2 is alice's
        with pytest.raises(FarmError) as caught, Lease(client, PlaceChoice.parse("any"), QEMU,
                                                       wait=0):
            pass
    assert caught.value.message == (f"every place for qemu-m55 is busy (qemu-1 held by "
                                    f"{client.identity}; qemu-2 held by ci-7/alice)")
    assert client.places()["qemu-1"].holder is None
    assert reservations(places_lab).strip() == ""


@pytest.mark.parametrize(("text", "choice"), [
    ("evb-1", PlaceChoice("evb-1")),
    ("any", PlaceChoice(None)),
    ("owner=ml-team", PlaceChoice(None, {"owner": "ml-team"})),
    ("owner=ml-team, rack=2", PlaceChoice(None, {"owner": "ml-team", "rack": "2"})),
])
def test_a_place_is_a_name_any_or_tags(text: str, choice: PlaceChoice) -> None:
    assert PlaceChoice.parse(text) == choice


def test_a_place_of_tags_must_be_key_value_pairs() -> None:
    with pytest.raises(FarmError, match="neither a name nor KEY=VALUE"):
        PlaceChoice.parse("owner=ml-team,rack")


def test_tags_choose_among_the_places_for_the_board(places_lab: PlacesLab) -> None:
    client = farm_client(places_lab.lab.address)
    found = PlaceChoice.parse("owner=ml-team").candidates(client, QEMU)
    assert [p.name for p in found] == ["qemu-1", "qemu-2"]
    with pytest.raises(FarmError) as caught:
        PlaceChoice.parse("owner=hw-team").candidates(client, QEMU)
    assert caught.value.message == "no place hpx could use is for qemu-m55 with owner=hw-team"


def test_ctrl_c_while_waiting_cancels_the_reservation(places_lab: PlacesLab) -> None:
    def interrupt(note: str) -> None:
        raise KeyboardInterrupt

    waiting = Lease(farm_client(places_lab.lab.address), "qemu-2", QEMU, wait=60.0,
                    notify=interrupt)
    with pytest.raises(KeyboardInterrupt), waiting:
        pass
    assert reservations(places_lab).strip() == ""


def test_sigterm_while_held_is_an_interruption_that_releases(places_lab: PlacesLab) -> None:
    client = farm_client(places_lab.lab.address)
    previous = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), Lease(client, "qemu-1", QEMU, wait=5.0):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the signal's handler raises before this ends
    assert client.places()["qemu-1"].holder is None
    assert signal.getsignal(signal.SIGTERM) is previous


def test_a_lost_coordinator_fails_the_run_with_a_failed_bundle(places_lab: PlacesLab) -> None:
    require_tools()
    hang, _ = fixture_build("hang_engine")
    out = places_lab.root / "lost"
    log = places_lab.root / "lost.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "hpx"), "run", "--work-dir", str(hang.root),
             "--output-dir", str(out), "--timeout", "120", "--place", "qemu-1",
             "--ssh-key", str(places_lab.ssh.client_key)],
            env={**os.environ, "LG_COORDINATOR": places_lab.lab.address, "COLUMNS": "200"},
            stdout=sink, stderr=subprocess.STDOUT)
    try:
        client = farm_client(places_lab.lab.address)
        deadline = time.monotonic() + 60
        while client.places()["qemu-1"].holder is None or b"running on place" not in \
                log.read_bytes():
            assert time.monotonic() < deadline and proc.poll() is None, log.read_text()
            time.sleep(0.1)
        time.sleep(1.0)
        places_lab.lab.kill_coordinator()
        assert proc.wait(60) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    said = log.read_text()
    assert f"error: lost the labgrid coordinator at {places_lab.lab.address}" in said
    assert ("could not release place qemu-1: lost the labgrid coordinator at "
            f"{places_lab.lab.address} (a restarted coordinator holds no place)") in said
    (bundle,) = out.iterdir()
    assert json.loads((bundle / "summary.json").read_text())["status"] == "failed"
