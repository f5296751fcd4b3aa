"""A debug probe on an exporter host: hpx's labgrid resource and driver, and RTT through them.

The lab is real (a labgrid coordinator and exporter on loopback, an sshd standing for the
exporter host); the probe is the fake pyocd the probe tests use, imported by hpx's agent on
the "exporter host" (tests/support/remote_pyocd), so everything from labgrid's driver interface
and the ssh link to hpx's probe runner and its RTT reader is the real code. The ELF is the real
qemu-m55 selftest on the silicon view of that board (tests/support/probe_board.py).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import attrs
import pytest
from emulated_firmware import selftest_build
from fake_pyocd import Bench, FakeError, FakeProbe, FakeTarget, FakeTargetSupportError, Firmware
from labgrid_lab import Lab, SshServer, require_lab
from probe_board import BOARD, CB, RECORDED, RING

from hpx_core.config.schema import FarmSection
from hpx_core.errors import FarmError, RunError
from hpx_core.farm import probe_driver
from hpx_core.farm.client import close_clients, farm_client
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeSettings
from hpx_core.results import measure, verify_bundle
from hpx_core.run import run_and_record
from hpx_core.runners import runner_for
from hpx_core.wire import parse_capture

SUPPORT = Path(__file__).resolve().parents[1] / "support"
UID = "00123456780"
PACK = "/opt/packs/AmbiqMicro.Apollo_DFP.1.4.1.pack"  # a path on the exporter host


@attrs.frozen
class ProbeLab:
    lab: Lab
    bench: Path  # the fake's JSON, read by each agent process when it starts
    log: Path  # what the last agent process saw

    @property
    def farm(self) -> FarmSection:
        return FarmSection(coordinator=self.lab.address, wait=5.0)

    def describe(self, **firmware: object) -> None:
        stream = self.bench.parent / "stream.bin"
        stream.write_bytes(RECORDED)
        self.bench.write_text(json.dumps({
            "probes": [[UID, "Apollo510 EVB J-Link"]],
            "ram": [[r.origin, r.length] for r in BOARD.memory],
            "known_targets": [],  # the part is known through the pack the place names
            "firmware": {"stream": str(stream), "cb_address": CB, "buffer_address": RING,
                         **firmware},
            "log": str(self.log),
        }))
        self.log.unlink(missing_ok=True)
        self.log.with_suffix(".silent").unlink(missing_ok=True)

    def seen(self) -> dict[str, object]:
        """What the last agent process on the exporter host saw (written when it ended)."""
        deadline = time.monotonic() + 10
        while not self.log.exists():
            assert time.monotonic() < deadline, "the agent did not end"
            time.sleep(0.05)
        data: dict[str, object] = json.loads(self.log.read_text())
        return data


def exporter_yaml(bench: Path) -> str:
    python = (f"env HPX_FAKE_PYOCD_BENCH={bench} "
              f"PYTHONPATH={SUPPORT / 'remote_pyocd'}:{SUPPORT} {sys.executable}")
    return (f'evb-1:\n  HpxProbe:\n    host: "{{{{ hostname }}}}"\n    unique_id: "{UID}"\n'
            f'    python: "{python}"\n    pack: {PACK}\n'
            f'evb-2:\n  HpxProbe:\n    host: "{{{{ hostname }}}}"\n    unique_id: "{UID}"\n'
            f'    python: "{sys.executable} -S"\n'
            f'evb-3:\n  HpxProbe:\n    host: "{{{{ hostname }}}}"\n    unique_id: "99"\n'
            f'    python: "{python}"\n'
            f'evb-4:\n  HpxProbe:\n    host: nowhere.invalid\n    unique_id: "{UID}"\n')


@pytest.fixture(scope="module")
def probe_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProbeLab]:
    require_lab()
    root = tmp_path_factory.mktemp("probe-lab")
    ssh, lab = SshServer(root / "ssh"), Lab(root)
    bench = root / "bench.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", f"{ssh.shim}{os.pathsep}{os.environ['PATH']}")
        try:
            ssh.start()
            lab.start()
            lab.start_exporter("bench", exporter_yaml(bench))
            lab.wait_for_resources("bench", ["evb-1", "evb-2", "evb-3", "evb-4"])
            for n in (1, 2, 3, 4):
                lab.add_place(f"evb-{n}", {"board": BOARD.name}, f"bench/evb-{n}/HpxProbe")
            made = ProbeLab(lab, bench, root / "agent.json")
            made.describe()
            yield made
        finally:
            from labgrid.util.ssh import sshmanager

            close_clients()
            sshmanager.close_all()
            lab.stop()
            ssh.stop()
    assert lab.leftovers() == []


@pytest.fixture(scope="module")
def elf() -> Path:
    built: Path = selftest_build("qemu-m55")[1].elf
    return built


def test_the_driver_flashes_and_resets_over_labgrids_driver_interface(
        probe_lab: ProbeLab, elf: Path) -> None:
    from labgrid import Target, target_factory

    state = farm_client(probe_lab.lab.address).places()["evb-1"]
    (entry,) = state.resources
    assert entry.cls == "HpxProbe" and entry.params["host"] == "127.0.0.1"  # {{ hostname }}
    target = Target("bench-test")
    resource = target_factory.make_resource(target, entry.cls, entry.name, dict(entry.params))
    driver = target_factory.make_driver(target, "HpxPyOCDDriver", None,
                                        {"pyocd_target": BOARD.silicon.pyocd_target})
    assert isinstance(driver, probe_driver.HpxPyOCDDriver)
    assert driver.probe is resource  # bound by labgrid's target
    target.activate(driver)
    driver.load(str(elf))
    driver.reset()
    target.deactivate(driver)
    seen = probe_lab.seen()
    assert seen["pid"] != os.getpid()
    assert seen["flashed"] == [[elf.name, "elf"]]
    assert seen["flashed_existed_only_during_flash"] is True
    assert seen["resets"] == 2
    sessions = seen["sessions"]
    assert isinstance(sessions, list) and len(sessions) == 2
    assert all(s["opened"] and s["closed"] and s["probe"] == UID for s in sessions)
    assert sessions[0]["options"] == {"target_override": "ap510nfa_cbr", "pack": [PACK]}
    target.cleanup()


def test_a_run_on_a_probe_place_captures_rtt_there_and_records_the_place(
        probe_lab: ProbeLab, elf: Path, tmp_path: Path) -> None:
    probe_lab.describe()
    runner = runner_for(BOARD, place="evb-1", farm=probe_lab.farm, timeout=30.0)
    record = run_and_record(runner, elf, tmp_path, engine="selftest")
    assert record.execution.stream == RECORDED
    assert verify_bundle(record.bundle).status == "complete"
    local = measure(parse_capture(RECORDED), BOARD)
    assert [layer.counts for layer in record.measurement.layers] == \
        [layer.counts for layer in local.layers]
    run = json.loads((record.bundle / "run.json").read_text())
    assert run["probe"]["unique_id"] == UID
    assert run["place"]["name"] == "evb-1"
    assert run["place"]["exporter"] == "bench" and run["place"]["host"] == "127.0.0.1"
    assert run["place"]["resource"] == "bench/evb-1/HpxProbe/HpxProbe"
    provenance = json.loads((record.bundle / "provenance.json").read_text())
    assert provenance["place"]["held_by"] == farm_client(probe_lab.lab.address).identity
    seen = probe_lab.seen()
    assert seen["flashed"] == [[elf.name, "elf"]] and seen["resets"] == 1
    options = {"target_override": "ap510nfa_cbr", "pack": [PACK]}
    assert seen["sessions"] == [  # flash and reset, let go, attach for the capture
        {"probe": UID, "opened": True, "closed": True, "options": options},
        {"probe": UID, "opened": True, "closed": True,
         "options": options | {"connect_mode": "attach"}}]
    assert farm_client(probe_lab.lab.address).places()["evb-1"].holder is None


def test_a_hang_on_the_far_probe_is_diagnosed_there(probe_lab: ProbeLab, elf: Path,
                                                    tmp_path: Path) -> None:
    main = next(s for s in symbol_inventory(elf).symbols if s.name == "main")
    probe_lab.describe(stop_after=500, pc=main.address + 4)
    runner = runner_for(BOARD, place="evb-1", farm=probe_lab.farm, timeout=30.0)
    runner.probe_settings = ProbeSettings(heartbeat=1.0, rtt_wait=5.0)  # type: ignore[attr-defined]
    with pytest.raises(RunError) as caught:
        run_and_record(runner, elf, tmp_path, engine="selftest")
    assert caught.value.message.startswith("the target is hung: no output for 1 s")
    assert f"core RUNNING, pc {main.address + 4:#010x} in main" in caught.value.message
    bundle = Path(caught.value.hint.split("failed bundle: ")[1])
    assert (bundle / "capture.bin").read_bytes() == RECORDED[:500]
    assert probe_lab.seen()["halts"] == 1
    assert farm_client(probe_lab.lab.address).places()["evb-1"].holder is None


def test_an_exporter_host_without_pyocd_is_named(probe_lab: ProbeLab, elf: Path,
                                                 tmp_path: Path) -> None:
    runner = runner_for(BOARD, place="evb-2", farm=probe_lab.farm, timeout=30.0)
    with pytest.raises(FarmError) as caught:
        run_and_record(runner, elf, tmp_path, engine="selftest")
    assert caught.value.message.startswith("place evb-2: hpx's pyOCD agent does not start on "
                                           f"127.0.0.1 ({sys.executable} -S)")
    assert "No module named 'pyocd'" in caught.value.message
    assert "install pyocd there" in caught.value.hint
    assert farm_client(probe_lab.lab.address).places()["evb-2"].holder is None


def test_a_probe_host_ssh_cannot_reach_is_named(probe_lab: ProbeLab, elf: Path,
                                                tmp_path: Path) -> None:
    runner = runner_for(BOARD, place="evb-4", farm=probe_lab.farm, timeout=30.0)
    with pytest.raises(FarmError) as caught:
        run_and_record(runner, elf, tmp_path, engine="selftest")
    assert caught.value.message.startswith("place evb-4: cannot reach nowhere.invalid over ssh")
    assert "`ssh nowhere.invalid true`" in caught.value.hint
    assert farm_client(probe_lab.lab.address).places()["evb-4"].holder is None


def test_a_probe_missing_on_the_exporter_host_is_named(probe_lab: ProbeLab, elf: Path,
                                                       tmp_path: Path) -> None:
    probe_lab.describe()
    runner = runner_for(BOARD, place="evb-3", farm=probe_lab.farm, timeout=30.0)
    with pytest.raises(FarmError) as caught:
        run_and_record(runner, elf, tmp_path, engine="selftest")
    assert caught.value.message == "place evb-3: probe 99 is not attached to 127.0.0.1"
    assert caught.value.hint.startswith(f"attached there: {UID} (Apollo510 EVB J-Link);")
    assert probe_lab.seen()["flashed"] == []
    assert farm_client(probe_lab.lab.address).places()["evb-3"].holder is None


def test_an_exporter_lost_mid_run_stops_the_capture(probe_lab: ProbeLab, elf: Path,
                                                    tmp_path: Path) -> None:
    probe_lab.describe(stop_after=500)  # then silent, far longer than the heartbeat's wait
    runner = runner_for(BOARD, place="evb-1", farm=probe_lab.farm, timeout=60.0)
    runner.probe_settings = ProbeSettings(heartbeat=60.0)  # type: ignore[attr-defined]
    client = farm_client(probe_lab.lab.address)
    failure: list[BaseException] = []

    def run() -> None:
        try:
            run_and_record(runner, elf, tmp_path, engine="selftest")
        except BaseException as error:  # handed to the test's thread
            failure.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    deadline = time.monotonic() + 20
    while client.places()["evb-1"].holder is None:
        assert time.monotonic() < deadline and worker.is_alive(), "the run did not start"
        time.sleep(0.1)
    silent = probe_lab.log.with_suffix(".silent")
    while not silent.exists():  # flashed, handed over, streamed, then silent
        assert time.monotonic() < deadline + 30 and worker.is_alive(), "the firmware never ran"
        time.sleep(0.1)
    probe_lab.lab.kill_exporter("bench")
    worker.join(30)
    assert not worker.is_alive()
    (error,) = failure
    assert isinstance(error, RunError)
    assert error.message == ("exporter bench of place evb-1 disconnected from the coordinator "
                             "(bench/evb-1/HpxProbe/HpxProbe lost)")
    bundle = Path(error.hint.split("failed bundle: ")[1])
    assert (bundle / "capture.bin").read_bytes() == RECORDED[:500]
    assert json.loads((bundle / "summary.json").read_text())["status"] == "failed"
    assert client.places()["evb-1"].holder is None  # released: labgrid skips the orphan
    probe_lab.lab.start_exporter("bench", exporter_yaml(probe_lab.bench))


def local_driver(known: set[str]) -> tuple[Any, Bench]:
    """The driver's session handling on the local fake pyocd (whose sessions open as pyocd's
    do: ``auto_open`` only in ``__enter__``), without a lab."""
    fw = Firmware(stream=RECORDED, cb_address=CB, buffer_address=RING)
    desk = Bench([FakeProbe(UID, "Apollo510 EVB J-Link")],
                 FakeTarget([(r.origin, r.length) for r in BOARD.memory], fw), known)
    api = PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                   FakeTargetSupportError)
    driver = SimpleNamespace(pyocd_target="ap510nfa_cbr", where="bench (python3)",
                             probe=SimpleNamespace(unique_id=UID, pack=None), api=lambda: api)
    return driver, desk


def test_the_driver_opens_the_session_it_works_in() -> None:
    driver, desk = local_driver({"ap510nfa_cbr"})
    opened: list[bool] = []
    probe_driver.HpxPyOCDDriver._with_session(driver, lambda s: opened.append(s.opened))
    assert opened == [True]
    assert [s.closed for s in desk.sessions] == [True] and desk.target.attached == 0


def test_the_driver_names_a_target_pyocd_does_not_know() -> None:
    driver, desk = local_driver(set())
    with pytest.raises(FarmError) as caught:
        probe_driver.HpxPyOCDDriver._with_session(driver, lambda s: None)
    assert caught.value.message == ("pyOCD on bench (python3) does not know target "
                                    "'ap510nfa_cbr' (Target type ap510nfa_cbr not recognized.)")
    assert caught.value.hint == "name the part's CMSIS pack in the HpxProbe's pack"
    assert desk.target.attached == 0
