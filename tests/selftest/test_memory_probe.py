"""The memory probe: its firmware built by the real toolchain and run under QEMU (exact
instruction counts), its buffers linked in their regions, and a run through the fake pyocd
whose cycles carry known miss costs, which ``hpx calibrate --memory`` must recover.

QEMU has neither caches nor a cycle counter, so the fake board's stream is the QEMU run of the
same probe with each walk's count raised by a known cost per line (what a board whose misses
cost that would count) and the refill events the PMU harness sends added.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import attrs
import pytest
from fake_pyocd import Bench, FakeError, FakeProbe, FakeTarget, FakeTargetSupportError, Firmware
from hpx_insight.memory_calibration import (
    FILE_NAME,
    calibration_text,
    load_memory_calibration,
    region_costs,
)

from hpx_core.boards import SiliconSpec, get_board
from hpx_core.boards.counters import CounterPlan
from hpx_core.errors import HpxError
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.firmware.placement import check_elf
from hpx_core.firmware.support import support_plan
from hpx_core.probe.event_passes import EventPlan
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeRunner, ProbeSettings
from hpx_core.run import run_and_record
from hpx_core.runners import runner_for
from hpx_core.selftest.memory_probe import (
    ENGINE,
    LINE_BYTES,
    WALK_BYTES,
    memory_probe_contribution,
    probe_walks,
)
from hpx_core.selftest.memory_probe import (
    EVENTS as PLAN_EVENTS,
)
from hpx_core.selftest.memory_run import run_memory_probe
from hpx_core.wire import parse_capture
from hpx_core.wire.encode import encode_record

pytestmark = pytest.mark.emulated
QEMU = get_board("qemu-m55")
# qemu-m55's memory map seen as a board behind a probe, as in tests/probe/test_event_passes.py:
# its code memory is flash, where the probe writes the image
BOARD = attrs.evolve(
    QEMU, kind="silicon", runner="probe",
    memory=tuple(attrs.evolve(r, use="flash") if r.name == "ITCM" else r for r in QEMU.memory),
    silicon=SiliconSpec("apollo", "apollo510", "-", "ap510nfa_cbr", "rtt", 4))
LINES = WALK_BYTES // LINE_BYTES
KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
# cycles per line each walk costs beyond its instructions on the fake board
COSTS = {("DTCM", "read"): 0, ("DTCM", "write"): 0, ("ITCM", "read"): 0,
         ("SRAM", "read"): 11, ("SRAM", "write"): 4, ("QSPI", "read"): 23}
REFILL = 0x03
PLAN = EventPlan(CounterPlan([("L1D_CACHE_REFILL",)]), {REFILL: "L1D_CACHE_REFILL"})


def needs_tools() -> None:
    missing = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm", "ninja")
               if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (CI installs them)")


@pytest.fixture(scope="module")
def qemu_stream(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The probe built for qemu-m55 and run under QEMU: its capture's bytes."""
    needs_tools()
    work = tmp_path_factory.mktemp("memory-probe")
    contribution = memory_probe_contribution(QEMU)
    project = render_project(work / "fw", QEMU, contribution, HarnessSettings(ENGINE))
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"))
    check_elf(QEMU, built.elf, contribution.buffers)
    record = run_and_record(runner_for(QEMU, timeout=60), built.elf, work / "results",
                            engine=ENGINE)
    return record.execution.stream


def test_each_walk_is_one_access_per_line_in_its_own_region(qemu_stream: bytes) -> None:
    """Every walk runs its three instructions per line (load or store, subs, bne) and a few
    around them, the same in every region, so what a board adds to one is its memory's."""
    from hpx_core.results import measure

    walks = probe_walks(QEMU)
    assert [w.name for w in walks] == ["read DTCM", "write DTCM", "read ITCM", "read SRAM",
                                       "write SRAM", "read QSPI"]
    layers = {layer.name: layer.median for layer in measure(parse_capture(qemu_stream),
                                                            QEMU).layers}
    assert set(layers) == {w.name for w in walks}
    for name, count in layers.items():
        assert 3 * LINES <= count <= 3 * LINES + 16, (name, count)


def with_costs(stream: bytes) -> bytes:
    """The QEMU stream as the fake board sends it: each walk's count raised by its cost per
    line, and a refill event per line of the walks that pay one."""
    records = parse_capture(stream).records
    names = {r.number("idx"): str(r.fields["name"]) for r in records if r.type == "LAYERINFO"}
    sent: list[tuple[str, dict[str, int | str | bytes]]] = []
    for record in records:
        fields: dict[str, int | str | bytes] = dict(record.fields)
        if record.type == "LAYER":
            access, region = names[record.number("idx")].split()
            cost = COSTS[(region, access)]
            fields["raw"] = record.number("raw") + cost * LINES
        sent.append((record.type, fields))
        if record.type == "LAYER":
            sent.append(("LAYEREV", {"iter": record.number("iter"), "idx": record.number("idx"),
                                     "ev": 0, "raw": LINES if cost else 0, "ovf": 0}))
        if record.type == "CAL":
            sent.append(("EVENTINFO", {"ev": 0, "number": REFILL, "cal_sum": 0}))
    return b"".join(encode_record(seq, kind, fields) for seq, (kind, fields) in enumerate(sent))


def fake_runner(stream: bytes) -> ProbeRunner:
    data = next(r for r in BOARD.memory if r.name == "SRAM")
    firmware = Firmware(stream=b"", cb_address=data.origin + 0x7_0000,
                        buffer_address=data.origin + 0x7_1000)
    target = FakeTarget([(r.origin, r.length) for r in BOARD.memory], firmware)
    desk = Bench([FakeProbe("001234567801", "Apollo510 EVB J-Link")], target,
                 known_targets={"ap510nfa_cbr"}, streams=[stream])
    api = PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                   FakeTargetSupportError)
    return ProbeRunner(BOARD, ProbeSettings(timeout=10.0, rtt_wait=2.0, heartbeat=0.3, poll=0.0),
                       api=api)


def test_calibrate_memory_recovers_known_costs_through_the_fake_probe(
        qemu_stream: bytes, tmp_path: Path) -> None:
    run = run_memory_probe(BOARD, tmp_path / "work", tmp_path / "results",
                           runner=fake_runner(with_costs(qemu_stream)), events=PLAN,
                           support=support_plan(QEMU))
    assert run.record.bundle.is_dir()
    config = json.loads((run.record.bundle / "config.json").read_text())
    assert (config["board"], config["clock"], config["engine"]) == (BOARD.name, BOARD.clock,
                                                                   "memory-probe")
    result = region_costs(run)
    assert result.baseline == "DTCM"
    found = {r.region: r for r in result.regions}
    assert set(found) == {"ITCM", "SRAM", "QSPI"}
    for (region, access), cost in COSTS.items():
        if region == "DTCM":
            continue
        got = found[region].read_fill if access == "read" else found[region].write_miss
        assert got == pytest.approx(cost, abs=0.01), (region, access)
    assert found["QSPI"].write_miss is None  # read-only: no store walk
    assert found["SRAM"].refills_per_line == 1.0
    assert any("ITCM: the data cache refilled 0%" in note for note in result.notes)
    disturbed = attrs.evolve(run, walks=[attrs.evolve(w, cycles=w.cycles + 2000 * LINES)
                                         if w.walk.name == "read SRAM" else w
                                         for w in run.walks])
    with pytest.raises(HpxError, match="read walk over SRAM took 2,011 cycles per line"):
        region_costs(disturbed)
    # the file the estimate takes, read back for the board in its clock mode
    path = tmp_path / FILE_NAME
    path.write_text(calibration_text(result))
    document = json.loads(path.read_text())
    assert document["walks"][0]["name"] == "read DTCM"
    assert document["regions"]["SRAM"]["read_fill"] == pytest.approx(11, abs=0.01)


def test_a_memory_calibration_is_for_its_board_and_clock(tmp_path: Path) -> None:
    document: dict[str, Any] = {"schema": "hpx.memory-calibration/1", "board": "apollo510_evb",
                "clock": "lp", "regions": {"MCU_MRAM": {"read_fill": 17.5, "write_miss": None},
                                           "SHARED_SRAM": {"read_fill": 8.0,
                                                           "write_miss": 3.0}}}
    path = tmp_path / FILE_NAME
    path.write_text(json.dumps(document))
    ap510 = get_board("apollo510_evb")
    costs = load_memory_calibration(path, ap510)
    assert costs["MCU_MRAM"].read_fill == 17.5 and costs["SHARED_SRAM"].write_miss == 3.0
    assert "measured on apollo510_evb" in costs["MCU_MRAM"].source
    with pytest.raises(HpxError, match="measured at the lp clock, the estimate is at hp"):
        load_memory_calibration(path, ap510.at_clock("hp"))
    with pytest.raises(HpxError, match="measures apollo510_evb, not apollo330mP_evb"):
        load_memory_calibration(path, get_board("apollo330mP_evb"))
    document["regions"]["MCU_MRAM"]["read_fill"] = -1
    path.write_text(json.dumps(document))
    with pytest.raises(HpxError, match="is damaged"):
        load_memory_calibration(path, ap510)


def test_an_emulated_board_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    with pytest.raises(HpxError, match="qemu-m55 is emulated"):
        run_memory_probe(QEMU, tmp_path / "work", tmp_path / "results")
    assert not (tmp_path / "work").exists()


def test_hpx_calibrate_memory_prints_and_writes_the_costs(
        qemu_stream: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The command through the fake probe: the walks and costs on the console, the file the
    estimate takes, and the probe's bundle beside it."""
    import functools

    import hpx_insight.memory_command as command

    from hpx_core.cli import main

    monkeypatch.setattr(command, "memory_board", lambda name, clock: BOARD)
    monkeypatch.setattr(command, "run_memory_probe", functools.partial(
        run_memory_probe, runner=fake_runner(with_costs(qemu_stream)), events=PLAN,
        support=support_plan(QEMU)))
    out_dir = tmp_path / "cal"
    assert main(["calibrate", "--memory", "--board", "apollo510_evb", "--work-dir",
                 str(tmp_path / "work"), "--output-dir", str(out_dir)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "cycles per line beyond DTCM" in said
    assert "│ SRAM │ 11.00 │ 4.00 │" in said and "│ QSPI │ 23.00 │ - │" in said
    assert f"written: {out_dir / FILE_NAME}" in said
    assert json.loads((out_dir / FILE_NAME).read_text())["regions"]["QSPI"]["read_fill"] == 23
    assert len(list((out_dir / "results").iterdir())) == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["calibrate", "--memory"], "hpx calibrate --memory needs the board to measure"),
    (["calibrate", "--memory", "--board", "qemu-m55"], "qemu-m55 is emulated"),
    (["calibrate", "--memory", "--board", "apollo4p_evb"], "simulates no caches for apollo4p"),
    (["calibrate", "--memory", "--board", "apollo510_evb", "x.hpxb"], "takes no bundles"),
    (["calibrate"], "hpx calibrate needs bundles, or --memory --board BOARD"),
    (["profile", str(KWS), "--memory-calibration", "m.json"],
     "profiling.memory_calibration corrects an estimate, and none is asked for"),
])
def test_what_calibrate_memory_cannot_do_is_one_error(
        argv: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from hpx_core.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["apollo510_evb", "apollo330mP_evb"])
@pytest.mark.parametrize("clock", ["lp", "hp"])
def test_the_probe_builds_for_the_apollo5_boards_with_each_buffer_in_its_region(
        name: str, clock: str, tmp_path: Path) -> None:
    """With the pinned SDK (materialized, so e2e): the firmware the probe flashes, its PMU
    events compiled in, a buffer in MRAM, TCM and shared SRAM."""
    needs_tools()
    board = get_board(name).at_clock(clock)
    contribution = memory_probe_contribution(board)
    project = render_project(tmp_path, board, contribution,
                             HarnessSettings(ENGINE, pmu_events=PLAN_EVENTS))
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"))
    report = check_elf(board, built.elf, contribution.buffers)
    assert {b.buffer.symbol: b.region for b in report.buffers} == {
        "hpx_memprobe_mcu_mram": "MCU_MRAM", "hpx_memprobe_mcu_tcm": "MCU_TCM",
        "hpx_memprobe_shared_sram": "SHARED_SRAM"}
    assert [w.name for w in probe_walks(board)] == [
        "read MCU_TCM", "write MCU_TCM", "read MCU_MRAM", "read SHARED_SRAM",
        "write SHARED_SRAM"]
    config = (project.source_dir / "hpx/harness/hpx_config.h").read_text()
    assert "ARM_PMU_L1D_CACHE_REFILL" in config and "ARM_PMU_STALL_BACKEND" in config
