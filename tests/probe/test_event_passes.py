"""PMU event passes through a fake pyocd: plan, extra pass built and flashed, merged bundle.

The firmware images are real builds (the selftest harness by the real toolchain); the board is
the qemu-m55 memory map seen as a board behind a probe, as in test_runner.py. QEMU has no
Armv8.1-M PMU, so each image's RTT stream is the recorded selftest capture with the event
records the PMU harness sends added (EVENTINFO after CAL, LAYEREV after each LAYER).
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from fake_pyocd import Bench, FakeError, FakeProbe, FakeTarget, FakeTargetSupportError, Firmware

from hpx_core.boards import SiliconSpec, get_board
from hpx_core.boards.counters import CounterPlan
from hpx_core.compare import load_view
from hpx_core.errors import ConfigError
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.firmware.support import support_plan
from hpx_core.probe.event_passes import EventPlan, plan_events, run_extra_passes
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeRunner, ProbeSettings
from hpx_core.run import run_and_record
from hpx_core.selftest.layers import selftest_contribution
from hpx_core.wire import parse_capture
from hpx_core.wire.encode import encode_record

pytestmark = pytest.mark.emulated
WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire"
RECORDED = (WIRE / "selftest-qemu-m55.bin").read_bytes()
_QEMU = get_board("qemu-m55")
BOARD = attrs.evolve(
    _QEMU, kind="silicon", runner="probe",
    memory=(attrs.evolve(_QEMU.regions_for("code")[0], use="flash"),
            _QEMU.regions_for("data")[0]),
    silicon=SiliconSpec("apollo", "apollo510", "-", "ap510nfa_cbr", "rtt", 4),
)
FAST = ProbeSettings(timeout=10.0, rtt_wait=2.0, heartbeat=0.3, poll=0.0)  # a loaded host is slow
NAMES = {0x08: "INST_RETIRED", 0x200: "MVE_INST_RETIRED", 0x03: "L1D_CACHE_REFILL",
         0x04: "L1D_CACHE", 0x24: "STALL"}
PLAN = EventPlan(CounterPlan([("INST_RETIRED", "MVE_INST_RETIRED", "L1D_CACHE_REFILL",
                               "L1D_CACHE"), ("STALL",)]), NAMES)
PAIR = 5  # events an empty begin/end pair adds to each event


def counted(idx: int, number: int) -> int:
    return 1000 * (idx + 1) + number


def with_events(numbers: list[int], wrapped: tuple[int, int] | None = None) -> bytes:
    """The recorded stream as PMU firmware counting ``numbers`` would send it."""
    records = parse_capture(RECORDED).records
    repeats = next(r for r in records if r.type == "CAL").number("repeats")
    out, seq = bytearray(), 0

    def emit(kind: str, fields: dict[str, object]) -> None:
        nonlocal seq
        out.extend(encode_record(seq, kind, fields))
        seq += 1

    for record in records:
        emit(record.type, dict(record.fields))
        if record.type == "CAL":
            for k, number in enumerate(numbers):
                emit("EVENTINFO", {"ev": k, "number": number, "cal_sum": PAIR * repeats})
        if record.type == "LAYER":
            idx, calls = record.number("idx"), record.number("calls")
            for k, number in enumerate(numbers):
                emit("LAYEREV", {"iter": record.number("iter"), "idx": idx, "ev": k,
                                 "raw": counted(idx, number) + calls * PAIR,
                                 "ovf": int((idx, number) == wrapped)})
    return bytes(out)


def bench(streams: list[bytes]) -> Bench:
    firmware = Firmware(stream=b"", cb_address=BOARD.memory[1].origin + 0x6510,
                        buffer_address=BOARD.memory[1].origin + 0x7000)
    target = FakeTarget([(r.origin, r.length) for r in BOARD.memory], firmware)
    return Bench([FakeProbe("001234567801", "Apollo510 EVB J-Link")], target,
                 known_targets={"ap510nfa_cbr"}, streams=streams)


def api(desk: Bench) -> PyocdApi:
    return PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                    FakeTargetSupportError)


def test_two_passes_are_flashed_and_merged_into_one_bundle(tmp_path: Path) -> None:
    support = support_plan(_QEMU)  # the emulated board's support: no SDK to fetch
    project = render_project(tmp_path / "fw", BOARD, selftest_contribution(BOARD),
                             HarnessSettings("selftest", pmu_events=PLAN.counters.passes[0]),
                             support=support)
    first = build_project(project, get_toolchain("arm-none-eabi-gcc"))
    desk = bench([with_events([0x24]), with_events([0x08, 0x200, 0x03, 0x04])])
    runner = ProbeRunner(BOARD, FAST, api=api(desk))
    others = run_extra_passes(project, PLAN, toolchain="arm-none-eabi-gcc", runner=runner,
                              support=support)
    # pass 2 is its own image, built beside pass 1 with only its event compiled in
    assert Path(desk.flashed[0][0]).parts[-3] == "fw-pass2"
    config_h = (tmp_path / "fw-pass2/project/hpx/harness/hpx_config.h").read_text()
    assert "#define HPX_PMU_EVENTS ARM_PMU_STALL," in config_h
    record = run_and_record(runner, first.elf, tmp_path / "results", engine="selftest",
                            event_names=NAMES, merge_with=others)
    layers = json.loads((record.bundle / "summary.json").read_text())["measurement"]["layers"]
    assert len(layers) == 8
    for layer in layers:
        assert layer["events"] == {name: counted(layer["index"], number)
                                   for number, name in NAMES.items()}
    assert load_view(record.bundle).layers[3].events["STALL"] == counted(3, 0x24)


def test_results_show_has_a_column_per_event(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    from hpx_core.cli import main
    from hpx_core.results import BundleInputs, measure, write_bundle

    m = measure(parse_capture(with_events([0x08, 0x24])), BOARD, NAMES)
    bundle = write_bundle(tmp_path, BundleInputs(status="complete", board=BOARD.name,
                                                 engine="selftest", counter_units="ticks",
                                                 measurement=m))
    assert main(["results", "show", str(bundle)]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "spread" in line)
    assert "INST_RETIRED" in header and "STALL" in header
    assert f"{counted(6, 0x24):,}" in out  # the long layer's STALL count


def test_a_wrapped_event_counter_is_reported_not_counted() -> None:
    from hpx_core.results import measure

    m = measure(parse_capture(with_events([0x08], wrapped=(2, 0x08))), BOARD, NAMES)
    assert "INST_RETIRED" not in m.layers[2].events
    assert m.layers[1].events == {"INST_RETIRED": counted(1, 0x08)}
    assert any("INST_RETIRED wrapped its 32-bit counter" in issue for issue in m.issues)
    assert m.validity == "degraded"


def test_an_emulated_board_asked_for_events_is_refused_without_fetching() -> None:
    with pytest.raises(ConfigError, match="has no hardware counters"):
        plan_events(get_board("qemu-m55"), ["INST_RETIRED"])
    assert plan_events(get_board("qemu-m55"), []).counters.passes == ((),)


def test_a_dwt_board_says_only_cycles_are_captured() -> None:
    plan = plan_events(get_board("apollo4p_evb"), ["INST_RETIRED"])
    assert plan.counters.passes == ((),)
    assert plan.counters.note is not None and "only cycles" in plan.counters.note


def test_a_planned_event_no_pass_counted_degrades_the_run() -> None:
    from hpx_core.results import measure, merge_event_passes

    counted_one = measure(parse_capture(with_events([0x08])), BOARD, NAMES)
    plain = measure(parse_capture(RECORDED), BOARD, NAMES)  # firmware that counted nothing
    merged = merge_event_passes(counted_one, [plain], ["INST_RETIRED", "STALL"])
    assert merged.validity == "degraded"
    assert merged.issues == ("STALL was planned but no pass counted it",)
