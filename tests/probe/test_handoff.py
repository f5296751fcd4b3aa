"""What an Apollo part does around a reset, against the fake pyocd that does it too.

The secure bootloader holds the core while the debugger that reset it stays attached, and
for a while after it lets go the debug port faults; SRAM keeps the previous run's RTT control
block (unread bytes and all) until the new firmware's start-up zeroes it; a stream can stop
half-way (a lost probe, a firmware that re-made its RTT block); text printed during a timed
inference is dropped when the host falls behind. The ELF and stream are the real qemu-m55
selftest's (tests/support/probe_board.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from emulated_firmware import selftest_build
from fake_pyocd import Bench, FakeError, FakeProbe, FakeTarget, FakeTargetSupportError, Firmware
from probe_board import BOARD, CB, RECORDED, RING
from probe_paths import PATHS, Reach, reach

from hpx_core.errors import CaptureError, RunError
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeRunner, ProbeSettings, run_on_probe
from hpx_core.run import run_and_record
from hpx_core.wire import parse_capture
from hpx_core.wire.encode import encode_record

FAST = ProbeSettings(timeout=10.0, rtt_wait=2.0, heartbeat=0.3, poll=0.0,  # a loaded host is slow
                     attach_interval=0.0)


@pytest.fixture(scope="module")
def elf() -> Path:
    built: Path = selftest_build("qemu-m55")[1].elf
    return built


def bench(stream: bytes = RECORDED, **firmware: object) -> Bench:
    fw = Firmware(stream=stream, cb_address=CB, buffer_address=RING, **firmware)  # type: ignore[arg-type]
    target = FakeTarget([(r.origin, r.length) for r in BOARD.memory], fw)
    return Bench([FakeProbe("00123456780", "Apollo510 EVB J-Link")], target,
                 known_targets={"ap510nfa_cbr"})


def api(desk: Bench) -> PyocdApi:
    return PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                    FakeTargetSupportError)


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture
def on(path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """The bench through the test's path."""
    return lambda desk: reach(path, desk, tmp_path / "jlink", monkeypatch)


def test_the_debugger_lets_go_between_reset_and_capture(elf: Path, path: str, on) -> None:  # type: ignore[no-untyped-def]
    desk = bench()  # the bootloader holds the core while the resetting session stays attached
    r: Reach = on(desk)
    out = run_on_probe(r.board, elf, settings=FAST, **r.kwargs)
    assert out.stream == RECORDED
    assert desk.target.resets == 1 and desk.target.attached == 0
    if path == "pyocd":
        flashing, capturing = desk.sessions
        assert flashing.closed and "connect_mode" not in flashing.options
        assert capturing.options["connect_mode"] == "attach"  # attached without halting
        assert out.reset.name == "pyocd"
    else:
        assert r.lib is not None and r.lib.resets == ["commander"]  # not pylink's reset
        assert out.reset.name == "commander"


def test_faults_while_the_bootloader_runs_are_retried(elf: Path, on) -> None:  # type: ignore[no-untyped-def]
    desk = bench(boot_faults=7)
    r: Reach = on(desk)
    out = run_on_probe(r.board, elf, settings=FAST, **r.kwargs)
    assert out.stream == RECORDED
    assert desk.target.faults_left == 0  # every faulting read was met and retried


def test_a_connect_refused_after_the_handoff_is_retried(elf: Path, path: str, on) -> None:  # type: ignore[no-untyped-def]
    desk = bench(boot_refusals=6)  # the bootloader's phase: the debug port does not answer
    r: Reach = on(desk)
    out = run_on_probe(r.board, elf, settings=FAST, **r.kwargs)
    assert out.stream == RECORDED
    assert desk.target.refusals_left == 0 and desk.target.attached == 0
    if r.lib is not None:
        assert r.lib.refused == 6


def test_a_connect_refused_past_the_wait_is_one_error(elf: Path, path: str, on) -> None:  # type: ignore[no-untyped-def]
    desk = bench(boot_refusals=10**9)
    r: Reach = on(desk)
    ticks = iter(range(10**6))
    settings = ProbeSettings(timeout=10.0, attach_wait=5.0, attach_interval=0.0, poll=0.0)
    with pytest.raises(RunError) as caught:
        run_on_probe(r.board, elf, settings=settings, clock=lambda: float(next(ticks)),
                     sleep=lambda _: None, **r.kwargs)
    assert caught.value.message.startswith("cannot connect through probe 00123456780 "
                                           f"({path}): ")
    assert caught.value.message.endswith(", still after 5 s of retries after the bootloader "
                                         "hand-off")
    assert "power cycle" in caught.value.hint
    assert desk.target.attached == 0  # every refused try was closed


def test_a_core_halted_at_the_attach_is_resumed(elf: Path, path: str, on) -> None:  # type: ignore[no-untyped-def]
    desk = bench(halts_on_attach=True)  # the probe's connect halts the core
    r: Reach = on(desk)
    out = run_on_probe(r.board, elf, settings=FAST, **r.kwargs)
    assert out.stream == RECORDED
    if r.lib is not None:
        assert r.lib.restarts == 1  # J-Link's go, once, in the capture session


def test_faults_that_do_not_end_are_one_capture_error(elf: Path, on) -> None:  # type: ignore[no-untyped-def]
    desk = bench(boot_faults=10**9)
    r: Reach = on(desk)
    with pytest.raises(CaptureError) as caught:
        run_on_probe(r.board, elf, settings=FAST, **r.kwargs)
    assert caught.value.message == (
        "the probe's reads failed (memory transfer fault (SWD fault ACK) while the bootloader "
        "runs) within 2 s of reset")
    assert "the firmware did not start" in caught.value.hint
    assert desk.target.attached == 0


def previous_run() -> bytes:
    """A whole earlier stream, START to END, that the host never read."""
    start = parse_capture(RECORDED).records[0]
    fields = dict(start.fields) | {"iterations": 1, "warmup": 0}
    return encode_record(0, "START", fields) + encode_record(1, "END", {"status": 0})


def test_a_control_block_left_by_the_previous_run_is_not_read(elf: Path, on) -> None:  # type: ignore[no-untyped-def]
    desk = bench()
    old = previous_run()
    desk.target.leave_previous_run(old)
    r: Reach = on(desk)
    out = run_on_probe(r.board, elf, settings=FAST, **r.kwargs)
    assert out.stream == RECORDED  # not the old stream that sat unread in SRAM
    assert old not in out.stream


def test_a_probe_lost_mid_stream_keeps_the_capture_so_far(  # type: ignore[no-untyped-def]
        elf: Path, tmp_path: Path, on) -> None:
    desk = bench(fault_after=700)
    r: Reach = on(desk)
    with pytest.raises(RunError) as caught:
        run_and_record(ProbeRunner(r.board, FAST, **r.kwargs), elf, tmp_path / "out",
                       engine="selftest")
    assert caught.value.message.startswith("the probe failed while reading RTT after ")
    assert "no ACK: the probe lost SWD" in caught.value.message
    bundle = Path(caught.value.hint.split("failed bundle: ")[1])
    kept = (bundle / "capture.bin").read_bytes()
    assert 0 < len(kept) <= 700 and RECORDED.startswith(kept)  # all the host had read
    assert json.loads((bundle / "summary.json").read_text())["status"] == "failed"
    assert desk.target.attached == 0


def test_a_block_remade_mid_stream_keeps_the_capture_so_far(  # type: ignore[no-untyped-def]
        elf: Path, tmp_path: Path, on) -> None:
    desk = bench(moves_after=500)
    r: Reach = on(desk)
    with pytest.raises(RunError) as caught:
        run_and_record(ProbeRunner(r.board, FAST, **r.kwargs), elf, tmp_path / "out",
                       engine="selftest")
    assert caught.value.message.startswith("the RTT up-buffer moved while hpx was reading it")
    bundle = Path(caught.value.hint.split("failed bundle: ")[1])
    kept = (bundle / "capture.bin").read_bytes()
    first = RECORDED[: RECORDED.index(b"\n") + 1]
    assert kept.startswith(first)  # what came before (its last chunk may be the new firmware's)


def after_record(stream: bytes, kind: str) -> int:
    """The offset just after the first ``kind`` record: where text may come."""
    start = stream.index(f" {kind} ".encode())
    return stream.index(b"\n", start) + 1


def test_text_dropped_during_a_timed_inference_is_an_issue_of_the_run(
        elf: Path, tmp_path: Path) -> None:
    at = after_record(RECORDED, "CAL")
    burst = b"engine log printed inside a timed inference " * 20  # more than the ring holds
    desk = bench(burst=burst, burst_at=at)
    record = run_and_record(ProbeRunner(BOARD, FAST, api=api(desk)), elf, tmp_path,
                            engine="selftest")
    dropped = desk.target.dropped
    assert 0 < dropped < len(burst)
    written = burst[: desk.target.burst_written]
    assert record.execution.stream == RECORDED[:at] + written + b"\n" + RECORDED[at:]
    assert record.execution.details["rtt_dropped_bytes"] == dropped
    summary = json.loads((record.bundle / "summary.json").read_text())
    assert summary["validity"] == "degraded"
    assert summary["issues"] == [
        f"RTT dropped {dropped} bytes the firmware wrote while a measurement ran (the host "
        "fell behind; the firmware never waits for it then): that output is missing from the "
        "capture"]


def test_a_run_without_dropped_bytes_stays_valid(elf: Path, tmp_path: Path) -> None:
    record = run_and_record(ProbeRunner(BOARD, FAST, api=api(bench())), elf, tmp_path,
                            engine="selftest")
    assert record.execution.details["rtt_dropped_bytes"] == 0
    assert record.measurement.validity == "valid" and record.measurement.issues == ()
