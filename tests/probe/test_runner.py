"""The probe runner against a fake pyocd (ConnectHelper/Session/Target/FileProgrammer).

The firmware ELF is real (the selftest built for qemu-m55 by the real toolchain, on the board of
tests/support/probe_board.py): the runner checks its placement before flashing and reads its
symbols to name where a hung target stopped. The stream is a real wire capture of that firmware.
The same runner against a real Apollo ELF is in tests/boards/test_apollo_builds.py.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from emulated_firmware import selftest_build
from fake_pyocd import (
    Bench,
    FakeError,
    FakeProbe,
    FakeTarget,
    FakeTargetSupportError,
    Firmware,
    State,
)
from probe_board import BOARD, CB, RECORDED, RING, SRAM
from probe_paths import PATHS, Reach, reach

from hpx_core.errors import CaptureError, RunError
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.probe.probes import NoProbeError
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeRunner, ProbeSettings, run_on_probe
from hpx_core.results import BundleInputs, verify_bundle
from hpx_core.run import run_and_record
from hpx_core.run.record import Recorder, ResultParts, judge, measured
from hpx_core.wire import parse_capture
from hpx_core.wire.encode import encode_record

FAST = ProbeSettings(timeout=10.0, rtt_wait=2.0, heartbeat=0.3, poll=0.0)  # a loaded host is slow


def stream_claiming(board: str) -> bytes:
    """The recorded stream with its START record re-encoded to claim another board."""
    out = bytearray()
    for record in parse_capture(RECORDED).records:
        fields = dict(record.fields)
        if record.type == "START":
            fields["board"] = board
        out += encode_record(record.seq, record.type, fields)
    return bytes(out)


@pytest.fixture(scope="module")
def elf() -> Path:
    built: Path = selftest_build("qemu-m55")[1].elf
    return built


def bench(stream: bytes = b"", probes: int = 1, **firmware: object) -> Bench:
    fw = Firmware(stream=stream, cb_address=CB, buffer_address=RING, **firmware)  # type: ignore[arg-type]
    target = FakeTarget([(r.origin, r.length) for r in BOARD.memory], fw)
    found = [FakeProbe(f"0012345678{i}", f"Apollo510 EVB J-Link #{i}") for i in range(probes)]
    return Bench(found, target, known_targets={BOARD.silicon.pyocd_target})  # type: ignore[union-attr]


def api(desk: Bench) -> PyocdApi:
    return PyocdApi(
        desk.connect_helper(), desk.file_programmer(), FakeError, FakeTargetSupportError
    )


def test_no_probe_is_its_own_error(elf: Path) -> None:
    desk = bench(probes=0)
    with pytest.raises(NoProbeError) as caught:
        run_on_probe(BOARD, elf, api=api(desk), settings=FAST)
    assert caught.value.message == "no debug probe is attached"
    assert "hpx build" in caught.value.hint
    assert desk.sessions == []


def test_two_probes_without_probe_names_both(elf: Path) -> None:
    desk = bench(RECORDED, probes=2)
    with pytest.raises(RunError) as caught:
        run_on_probe(BOARD, elf, api=api(desk), settings=FAST)
    assert "2 debug probes are attached" in caught.value.message
    assert "--probe UID" in caught.value.hint
    assert "00123456780" in caught.value.hint and "00123456781" in caught.value.hint
    assert desk.sessions == []


def test_probe_option_chooses_one_of_two(elf: Path) -> None:
    desk = bench(RECORDED, probes=2)
    out = run_on_probe(BOARD, elf, probe="00123456781", api=api(desk), settings=FAST)
    assert out.probe.unique_id == "00123456781"
    # one session flashes and resets, the other captures: both on the chosen probe
    assert [s.probe.unique_id for s in desk.sessions] == ["00123456781", "00123456781"]
    with pytest.raises(RunError, match="matches no attached probe"):
        run_on_probe(BOARD, elf, probe="99", api=api(bench(probes=2)), settings=FAST)


def test_flash_failure_is_reported_and_the_session_closed(elf: Path) -> None:
    desk = bench(RECORDED)
    desk.flash_error = "flash algorithm returned error 0x1 at 0x00410000"
    with pytest.raises(RunError) as caught:
        run_on_probe(BOARD, elf, api=api(desk), settings=FAST)
    assert caught.value.message == (
        f"flashing {elf.name} failed: flash algorithm returned error 0x1 at 0x00410000"
    )
    assert len(desk.sessions) == 1 and desk.sessions[0].closed
    assert desk.target.resets == 0  # never reset into a half-written image


def test_unknown_target_asks_for_the_pack(elf: Path, tmp_path: Path) -> None:
    desk = bench(RECORDED)
    desk.known_targets = set()  # pyocd raises TargetSupportError when it makes the session
    with pytest.raises(RunError) as caught:
        run_on_probe(BOARD, elf, api=api(desk), settings=FAST)
    assert caught.value.message.startswith(
        "pyocd does not know target 'ap510nfa_cbr' for qemu-m55 (Target type ap510nfa_cbr not "
        "recognized.)")
    assert "--pack PATH" in caught.value.hint
    assert desk.sessions == [] and desk.target.attached == 0 and not desk.flashed
    pack = tmp_path / "AmbiqMicro.Apollo_DFP.pack"
    pack.write_bytes(b"PK")
    with_pack = ProbeSettings(timeout=10.0, rtt_wait=2.0, heartbeat=0.3, poll=0.0, packs=[pack])
    run_on_probe(BOARD, elf, api=api(desk), settings=with_pack)
    assert desk.sessions[-1].options["pack"] == [str(pack)]
    assert desk.sessions[-1].options["target_override"] == "ap510nfa_cbr"


def test_a_session_that_fails_to_open_is_closed(elf: Path) -> None:
    desk = bench(RECORDED)
    desk.open_error = "no ACK received (check the target's power)"
    with pytest.raises(RunError) as caught:
        run_on_probe(BOARD, elf, api=api(desk), settings=FAST)
    assert caught.value.message == ("cannot connect through probe 00123456780 (pyocd): "
                                    "no ACK received (check the target's power)")
    assert [s.closed for s in desk.sessions] == [True]
    assert desk.target.attached == 0  # the probe is not left held


def test_rtt_control_block_not_found(elf: Path) -> None:
    desk = bench(RECORDED, rtt=False)
    with pytest.raises(CaptureError) as caught:
        run_on_probe(BOARD, elf, api=api(desk), settings=FAST)
    assert "no SEGGER RTT control block found in RAM" in caught.value.message
    assert f"{SRAM.origin:#010x}" in caught.value.message
    assert "within 2 s of reset" in caught.value.message
    assert desk.flashed and desk.target.resets == 1
    assert [s.closed for s in desk.sessions] == [True, True] and desk.target.attached == 0


@pytest.mark.parametrize("path", PATHS)
def test_silent_target_is_reported_hung_where_it_hangs(
        elf: Path, tmp_path: Path, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    main = next(s for s in symbol_inventory(elf).symbols if s.name == "main")
    stream = RECORDED
    desk = bench(stream, stop_after=500, pc=main.address + 4)
    r: Reach = reach(path, desk, tmp_path / "jlink", monkeypatch)
    with pytest.raises(RunError) as caught:
        run_and_record(
            ProbeRunner(r.board, FAST, **r.kwargs), elf, tmp_path / "out", engine="selftest"
        )
    message = caught.value.message
    assert message.startswith("the target is hung: no output for 0.3 s")
    assert f"core RUNNING, pc {main.address + 4:#010x} in main" in message
    assert "after 500 bytes" in message
    assert desk.target.halts_since_reset == 1  # halted once, to read where it hangs
    bundle = Path(caught.value.hint.split("failed bundle: ")[1])
    assert (bundle / "capture.bin").read_bytes() == stream[:500]
    assert json.loads((bundle / "summary.json").read_text())["status"] == "failed"


@pytest.mark.parametrize("path", PATHS)
def test_locked_up_target_is_not_halted_again(
        elf: Path, tmp_path: Path, path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    desk = bench(RECORDED, stop_after=100, stopped_state=State.LOCKUP)
    r: Reach = reach(path, desk, tmp_path / "jlink", monkeypatch)
    with pytest.raises(RunError, match=r"core LOCKUP, pc 0x00410123"):
        run_on_probe(r.board, elf, settings=FAST, **r.kwargs)
    assert desk.target.halts_since_reset == 0


def test_complete_capture_through_a_small_ring_becomes_a_bundle(elf: Path, tmp_path: Path) -> None:
    stream = RECORDED
    desk = bench(stream, buffer_size=256, chunk=97)
    assert len(stream) > 7 * 256  # the ring wraps several times
    runner = ProbeRunner(BOARD, FAST, api=api(desk))
    recorder = Recorder(tmp_path, BundleInputs(
        status="failed", board=BOARD.name, engine="selftest",
        counter_units=BOARD.counter_units(), extra={"kernel_checks": []}))
    run, recorder = recorder.execute(runner, elf)
    capture = judge(BOARD, elf, run, runner.timeout)
    record = recorder.complete(run, capture, measured(capture, run, BOARD),
                               ResultParts({"layer_records": len(capture.of("LAYER"))}))
    assert record.execution.stream == stream
    assert record.execution.details["rtt_control_block"] == f"{CB + 24:#010x}"  # up-channel
    check = verify_bundle(record.bundle)
    assert check.status == "complete"
    assert (record.bundle / "capture.bin").read_bytes() == stream
    summary = json.loads((record.bundle / "summary.json").read_text())
    assert summary["identity"]["board"] == "qemu-m55"
    assert summary["validity"] == "valid"
    # engine facts reach a silicon bundle as they do an emulated one
    assert summary["extra"] == {"kernel_checks": [],
                                "layer_records": len(parse_capture(stream).of("LAYER"))}
    names = [layer.name for layer in record.measurement.layers]
    assert names == ["tiny", "short", "nops", "memory", "float", "stack", "vector", "long"]
    assert record.measurement.units == "instructions"  # the stream's own units, as sent
    run = json.loads((record.bundle / "run.json").read_text())
    assert run["probe"]["unique_id"] == "00123456780"


def test_a_target_talking_forever_stops_at_the_capture_limit(elf: Path, tmp_path: Path) -> None:
    limit = 32 * 1024
    start = RECORDED[: RECORDED.index(b"\n") + 1]  # the real START record, then only text
    talk = start + b"chatter: this firmware prints a line like this one forever\n" * 100_000
    desk = bench(talk, buffer_size=4096, chunk=4000)
    settings = ProbeSettings(timeout=120.0, rtt_wait=60.0, heartbeat=60.0, poll=0.0,
                             max_capture=limit)
    tracemalloc.start()
    try:
        with pytest.raises(RunError) as caught:
            run_and_record(ProbeRunner(BOARD, settings, api=api(desk)), elf, tmp_path,
                           engine="selftest")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert caught.value.message == ("the firmware sent more than the capture limit of 32,768 "
                                    "bytes before its END record")
    bundle = Path(caught.value.hint.split("failed bundle: ")[1])
    assert (bundle / "capture.bin").read_bytes() == talk[:limit]
    assert json.loads((bundle / "summary.json").read_text())["status"] == "failed"
    assert desk.target.sent < 2 * limit  # the host stopped reading at the limit
    # what the host held stayed near the limit, far below the 6 MB the target had to say (the
    # fake probe's own reads of RAM, as lists of ints, are most of it)
    assert peak < 1024 * 1024 + 4 * limit


def test_a_stream_from_another_boards_firmware_is_refused(elf: Path, tmp_path: Path) -> None:
    desk = bench(stream_claiming("apollo510_evb"))
    with pytest.raises(CaptureError, match="built for 'apollo510_evb', not 'qemu-m55'"):
        run_and_record(
            ProbeRunner(BOARD, FAST, api=api(desk)), elf, tmp_path, engine="selftest"
        )


def test_a_failed_counter_check_is_named(elf: Path, tmp_path: Path) -> None:
    start = parse_capture(RECORDED).records[0]
    stream = encode_record(0, "START", dict(start.fields))
    stream += encode_record(1, "ERROR", {"stage": "counter_init", "code": 12})
    stream += encode_record(2, "END", {"status": 2})
    with pytest.raises(RunError) as caught:
        run_and_record(
            ProbeRunner(BOARD, FAST, api=api(bench(stream))), elf, tmp_path, engine="selftest"
        )
    assert caught.value.message == (
        "the counter check at boot failed on qemu-m55: "
        "the counter did not advance across the check loop"
    )
