"""Emulated boards on a board farm: ``hpx`` runs QEMU on a place's exporter host.

The lab is the two-place farm of :mod:`qemu_farm` (``qemu-a`` on exporter lab1, ``qemu-b`` on
lab2). Every run is a real ``hpx`` process with real firmware: the selftest, a firmware that
hangs, and the kernelbench engine profiled end to end. Loops are bounded; the module checks
with ``ps`` that nothing it started is left.
"""

from __future__ import annotations

import csv
import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from emulated_firmware import fixture_build, selftest_build
from kernelbench_repo import KERNELS, kernels_git_env
from labgrid_lab import network_service
from qemu_farm import EXPORTERS, Farm, bundle_in, qemu_farm, run_json

from hpx_core.boards import get_board
from hpx_core.results import verify_bundle
from hpx_core.run import run_on_qemu

pytestmark = pytest.mark.emulated


@pytest.fixture(scope="module")
def farm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Farm]:
    with qemu_farm(tmp_path_factory.mktemp("emulated-farm")) as lab:
        yield lab


def test_hpx_run_on_a_place_counts_what_a_local_run_counts(farm: Farm) -> None:
    project, built = selftest_build("qemu-m55")
    out = farm.root / "run-a"
    done = farm.hpx("run", "--work-dir", str(project.root), "--output-dir", str(out),
                    "--place", "qemu-a", "--ssh-key", str(farm.ssh.client_key))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "running on place qemu-a (exporter lab1, host 127.0.0.1)" in done.stdout
    assert "qemu-m55 on place qemu-a (exporter lab1)" in done.stdout
    bundle = bundle_in(out)
    assert verify_bundle(bundle).status == "complete"
    local = run_on_qemu(get_board("qemu-m55"), built.elf, timeout=120)
    assert (bundle / "capture.bin").read_bytes() == local.stream  # byte for byte
    place = run_json(bundle)["place"]
    assert isinstance(place, dict)
    assert place["name"] == "qemu-a" and place["exporter"] == "lab1"
    assert place["host"] == "127.0.0.1" and place["tags"] == {"board": "qemu-m55",
                                                               "lab": "loopback"}
    assert farm.holder("qemu-a") is None


def test_profile_on_a_place_end_to_end(farm: Farm) -> None:
    git = kernels_git_env(farm.root)
    cache = str(farm.root / "hpx-cache")
    common = ("profile", str(KERNELS), "--engine", "kernelbench", "--backend", "portable",
              "--board", "qemu-m55", "--iterations", "2")
    here = farm.hpx(*common, "--output-dir", str(farm.root / "profile-local"),
                    HPX_CACHE_DIR=cache, **git)
    assert here.returncode == 0, here.stdout + here.stderr
    there = farm.hpx(*common, "--output-dir", str(farm.root / "profile-place"),
                     "--place", "qemu-b", "--ssh-key", str(farm.ssh.client_key),
                     HPX_CACHE_DIR=cache, **git)
    assert there.returncode == 0, there.stdout + there.stderr
    local, remote = bundle_in(farm.root / "profile-local"), bundle_in(farm.root / "profile-place")
    assert farm.hpx("results", "verify", str(remote)).returncode == 0

    def medians(bundle: Path) -> list[tuple[str, str]]:
        with (bundle / "layers.csv").open() as table:
            return [(row["name"], row["median"]) for row in csv.DictReader(table)]

    assert medians(remote) == medians(local) and len(medians(local)) == 4
    summary = json.loads((remote / "summary.json").read_text())
    assert summary["outputs"]["exact"] is True
    config = json.loads((remote / "config.json").read_text())
    assert config["target.place"] == {"value": "qemu-b", "from": "--place"}
    place = run_json(remote)["place"]
    assert isinstance(place, dict) and place["exporter"] == "lab2"


def test_a_place_is_checked_before_anything_is_built(farm: Farm) -> None:
    refused = farm.hpx("profile", str(KERNELS), "--engine", "kernelbench", "--board",
                       "qemu-m55", "--output-dir", str(farm.root / "never" / "results"),
                       "--place", "qemu-c")
    assert refused.returncode == 1
    assert f"error: the coordinator at {farm.lab.address} has no place qemu-c" in refused.stderr
    assert "places there: qemu-a, qemu-b" in refused.stderr
    assert not (farm.root / "never").exists()  # no sources, no work folder, no bundle


def test_a_busy_place_is_waited_for_and_then_used(farm: Farm) -> None:
    hang, _ = fixture_build("hang_engine")
    selftest, _ = selftest_build("qemu-m55")
    holder = farm.start_hpx("holder", "run", "--work-dir", str(hang.root), "--output-dir",
                            str(farm.root / "busy-holder"), "--timeout", "25",
                            "--place", "qemu-a", "--ssh-key", str(farm.ssh.client_key))
    try:
        farm.until("the first process holds qemu-a", lambda: farm.holder("qemu-a") is not None)
        refused = farm.hpx("run", "--work-dir", str(selftest.root), "--place", "qemu-a",
                           "--no-wait", "--ssh-key", str(farm.ssh.client_key))
        assert refused.returncode == 1
        assert f"error: place qemu-a is busy (held by {farm.holder('qemu-a')})" \
            in refused.stderr
        waiter = farm.start_hpx("waiter", "run", "--work-dir", str(selftest.root),
                                "--output-dir", str(farm.root / "busy-waiter"), "--place",
                                "qemu-a", "--wait", "120", "--ssh-key",
                                str(farm.ssh.client_key))
        assert holder.wait(60) == 1  # the hanging firmware timed out
        assert waiter.wait(120) == 0, farm.output("waiter")
    finally:
        for proc in (holder, waiter):
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert "did not finish within 25 s" in farm.output("holder")
    waited = farm.output("waiter")
    assert "place qemu-a is busy (held by " in waited and "waiting up to 120 s for it" in waited
    assert waited.index("waiting up to") < waited.index("running on place qemu-a")
    first, second = bundle_in(farm.root / "busy-holder"), bundle_in(farm.root / "busy-waiter")
    assert json.loads((first / "summary.json").read_text())["status"] == "failed"
    assert verify_bundle(second).status == "complete"
    assert first.stat().st_mtime <= second.stat().st_mtime
    assert farm.holder("qemu-a") is None


def test_any_place_spreads_runs_over_the_places_one_run_each(farm: Farm) -> None:
    hang, _ = fixture_build("hang_engine")
    selftest, _ = selftest_build("qemu-m55")
    runs = [farm.start_hpx(f"any-{n}", "run", "--work-dir", str(hang.root), "--output-dir",
                           str(farm.root / f"any-{n}"), "--timeout", "20", "--place", "any",
                           "--ssh-key", str(farm.ssh.client_key)) for n in (1, 2)]
    try:
        farm.until("both places are held at once",
                   lambda: all(farm.holder(p) is not None for p in EXPORTERS.values()))
        full = farm.hpx("run", "--work-dir", str(selftest.root), "--place", "any",
                        "--no-wait", "--ssh-key", str(farm.ssh.client_key))
        assert [proc.wait(90) for proc in runs] == [1, 1]  # the hanging firmware timed out
    finally:
        for proc in runs:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    assert full.returncode == 1
    assert "error: every place for qemu-m55 is busy (qemu-a held by " in full.stderr
    assert "; qemu-b held by " in full.stderr
    places = {run_json(bundle_in(farm.root / f"any-{n}"))["place"]["name"]  # type: ignore[index]
              for n in (1, 2)}
    assert places == {"qemu-a", "qemu-b"}
    tagged = farm.hpx("run", "--work-dir", str(selftest.root), "--output-dir",
                      str(farm.root / "tagged"), "--place", "lab=loopback", "--ssh-key",
                      str(farm.ssh.client_key))
    assert tagged.returncode == 0, tagged.stdout + tagged.stderr
    none = farm.hpx("run", "--work-dir", str(selftest.root), "--place", "lab=elsewhere")
    assert none.returncode == 1
    assert "error: no place hpx could use is for qemu-m55 with lab=elsewhere" in none.stderr


def test_ctrl_c_mid_run_releases_the_place_and_keeps_a_failed_bundle(farm: Farm) -> None:
    hang, _ = fixture_build("hang_engine")
    out = farm.root / "interrupted"
    # a QEMU still ending from an earlier test would be taken for this run's
    farm.until("no QEMU left on the exporter host", lambda: not farm.far_qemus(), timeout=30)
    proc = farm.start_hpx("interrupted", "run", "--work-dir", str(hang.root), "--output-dir",
                          str(out), "--timeout", "120", "--place", "qemu-b", "--ssh-key",
                          str(farm.ssh.client_key))
    try:
        farm.until("QEMU runs on the exporter host", lambda: bool(farm.far_qemus()))
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        assert farm.exit_code(proc, "interrupted", 30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    said = farm.output("interrupted")
    assert "error: the run was interrupted" in said and "failed bundle: " in said
    bundle = bundle_in(out)
    summary = json.loads((bundle / "summary.json").read_text())
    assert summary["status"] == "failed"
    assert (bundle / "capture.bin").read_bytes().startswith(b"@HPX 0 START ")
    assert farm.holder("qemu-b") is None
    farm.until("the far QEMU ends", lambda: not farm.far_qemus(), timeout=10)


def test_a_killed_exporter_fails_the_run_and_the_place_follows_labgrids_rules(
        farm: Farm) -> None:
    hang, _ = fixture_build("hang_engine")
    selftest, _ = selftest_build("qemu-m55")
    out = farm.root / "orphaned"
    # a QEMU still ending from an earlier test would be taken for this run's
    farm.until("no QEMU left on the exporter host", lambda: not farm.far_qemus(), timeout=30)
    proc = farm.start_hpx("orphaned", "run", "--work-dir", str(hang.root), "--output-dir",
                          str(out), "--timeout", "120", "--place", "qemu-b", "--ssh-key",
                          str(farm.ssh.client_key))
    try:
        farm.until("QEMU runs on the exporter host", lambda: bool(farm.far_qemus()))
        farm.lab.kill_exporter("lab2")
        assert farm.exit_code(proc, "orphaned", 30) == 1
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    said = farm.output("orphaned")
    assert ("error: exporter lab2 of place qemu-b disconnected from the coordinator "
            "(lab2/qemu-b/NetworkService/NetworkService lost)") in said
    bundle = bundle_in(out)
    assert json.loads((bundle / "summary.json").read_text())["status"] == "failed"
    farm.until("the far QEMU ends", lambda: not farm.far_qemus(), timeout=10)
    assert farm.holder("qemu-b") is None  # hpx released it; labgrid skipped the orphan
    gone = farm.hpx("run", "--work-dir", str(selftest.root), "--place", "qemu-b",
                    "--no-wait", "--ssh-key", str(farm.ssh.client_key))
    assert gone.returncode == 1
    assert "error: place qemu-b has no NetworkService resource now" in gone.stderr
    assert "its exporter is not connected" in gone.stderr
    assert farm.holder("qemu-b") is None
    farm.lab.start_exporter("lab2", network_service("qemu-b", farm.ssh.port))
    farm.lab.wait_for_resources("lab2", ["qemu-b"])
    back = farm.hpx("run", "--work-dir", str(selftest.root), "--output-dir",
                    str(farm.root / "back"), "--place", "qemu-b", "--ssh-key",
                    str(farm.ssh.client_key))
    assert back.returncode == 0, back.stdout + back.stderr
