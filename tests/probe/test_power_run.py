"""A run that measures energy, through the probe runner, a fake pyocd and a fake Joulescope.

The firmware is the real selftest built with the power pass (its ``hpx_power_go`` is where the
host writes the go); its stream is the recorded selftest capture with the pass's ``POWER`` and
``POWEREND`` records where the harness sends them. The instrument replays a trace of known
currents: idle, the three whole inferences, then three instrumented ones of the selftest's
eight layers, each followed by idle. At ``POWER`` the runner starts the instrument, writes the
go and lets go of the part; it attaches again once every window has closed and reads the rest.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from emulated_firmware import require_tools
from fake_joulescope import DEVICE, FakeDriver, piecewise
from fake_pyocd import Bench, FakeError, FakeProbe, FakeTarget, FakeTargetSupportError, Firmware
from power_pass_fakes import pass_pieces, with_power_records
from probe_board import BOARD, CB, RECORDED, RING

from hpx_core.boards import get_board
from hpx_core.errors import RunError
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.power.windows import pass_energy
from hpx_core.probe.power_run import PowerRun
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import ProbeSettings, run_on_probe
from hpx_core.run.runner import StreamStoppedError
from hpx_core.selftest.layers import selftest_contribution
from hpx_core.wire import parse_capture

pytestmark = pytest.mark.emulated
FAST = ProbeSettings(timeout=10.0, rtt_wait=2.0, heartbeat=0.3, poll=0.0)
RATE = 100_000
VOLTS = 1.8
ITERATIONS, LAYERS = 3, 8
WHOLE_AMPS = (0.010, 0.011, 0.012)  # one current per whole inference
LAYER_AMPS = tuple(0.002 * (i + 1) for i in range(LAYERS))  # layer i draws 2(i+1) mA
IDLE_AMPS = 0.0005
WHOLE, LAYER, IDLE = 500, 60, 200  # samples


def power_stream() -> tuple[bytes, int]:
    return with_power_records(RECORDED, ITERATIONS)


def trace_pieces() -> list[tuple[int, float, int]]:
    return pass_pieces(WHOLE_AMPS, LAYER_AMPS, whole=WHOLE, layer=LAYER, idle=IDLE,
                       idle_amps=IDLE_AMPS)


def uj(samples: int, amps: float) -> float:
    return samples * amps * VOLTS / RATE * 1e6


@pytest.fixture(scope="module")
def elf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_tools()
    board = BOARD  # qemu-m55's memory map behind a probe (tests/support/probe_board.py)
    qemu = get_board("qemu-m55")
    project = render_project(tmp_path_factory.mktemp("power-elf"), qemu,
                             selftest_contribution(qemu),
                             HarnessSettings("selftest", switches=("HPX_POWER_PASS",)))
    built: Path = build_project(project, get_toolchain("arm-none-eabi-gcc")).elf
    assert board.memory[1].origin <= go_of(built) < board.memory[1].origin + board.memory[1].length
    return built


def go_of(elf: Path) -> int:
    return next(s.address for s in symbol_inventory(elf).symbols if s.name == "hpx_power_go")


def desk_for(elf: Path, stream: bytes, power_at: int, go: int | None = None) -> Bench:
    firmware = Firmware(stream=stream, cb_address=CB, buffer_address=RING, power_at=power_at,
                        go_address=go_of(elf) if go is None else go)
    target = FakeTarget([(r.origin, r.length) for r in BOARD.memory], firmware)
    return Bench([FakeProbe("001234567890", "Apollo510 EVB J-Link")], target,
                 known_targets={BOARD.silicon.pyocd_target})  # type: ignore[union-attr]


def api(desk: Bench) -> PyocdApi:
    return PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                    FakeTargetSupportError)


def power_run(**driver: object) -> PowerRun:
    signals = piecewise(RATE, trace_pieces(), volts=VOLTS)
    fake = FakeDriver(signals, sample_rate=RATE, **driver)  # type: ignore[arg-type]
    return PowerRun(fake, DEVICE, 2 * ITERATIONS, sample_rate=RATE, timeout=5.0, poll=0.01,
                    stall=1.0)


def test_the_windows_are_recorded_with_the_probe_let_go_and_the_stream_read_whole(
        elf: Path) -> None:
    stream, power_at = power_stream()
    desk = desk_for(elf, stream, power_at)
    output = run_on_probe(BOARD, elf, settings=FAST, api=api(desk), power=power_run())
    assert output.stream == stream  # both sessions' reads, nothing lost or read twice
    assert desk.target.go_attached == 1  # written through the capture session ...
    capture_session, again = desk.sessions[1], desk.sessions[2]  # ... which then closed:
    assert capture_session.closed and again.options["connect_mode"] == "attach"
    assert desk.target.resets == 1  # taken back without a reset
    assert output.power is not None
    energy = pass_energy(output.power, ITERATIONS, LAYERS)
    assert energy.inference.per_inference_uj == pytest.approx([uj(WHOLE, a) for a in WHOLE_AMPS])
    assert [x.median_uj for x in energy.layers] == pytest.approx(
        [uj(LAYER, a) for a in LAYER_AMPS])
    assert energy.inference.idle_floor_mw == pytest.approx(IDLE_AMPS * VOLTS * 1e3)


def test_a_lost_instrument_stops_the_run_with_the_stream_so_far(elf: Path) -> None:
    stream, power_at = power_stream()
    desk = desk_for(elf, stream, power_at)
    cut = IDLE + WHOLE + IDLE + WHOLE // 2  # inside the second whole window
    with pytest.raises(StreamStoppedError) as stopped:
        run_on_probe(BOARD, elf, settings=FAST, api=api(desk),
                     power=power_run(stop_after=cut, chunk=100))
    assert "stopped streaming" in stopped.value.message
    assert stopped.value.partial == stream[:power_at]  # the counted passes are kept


def test_without_a_power_pass_in_the_firmware_the_run_says_so() -> None:
    from emulated_firmware import selftest_build

    plain = selftest_build("qemu-m55")[1].elf
    stream, power_at = power_stream()
    desk = desk_for(plain, stream, power_at, go=BOARD.memory[1].origin)
    with pytest.raises(RunError) as refused:
        run_on_probe(BOARD, plain, settings=FAST, api=api(desk), power=power_run())
    assert refused.value.message == "hpx_app.elf has no power pass (hpx_power_go is not in it)"
    assert refused.value.hint == "build the firmware with --power"


def test_without_a_host_the_power_firmware_skips_its_windows_and_ends_cleanly(elf: Path) -> None:
    from emulated_firmware import selftest_build

    from hpx_core.run import run_on_qemu

    qemu = get_board("qemu-m55")
    alone = run_on_qemu(qemu, elf, timeout=300)  # no probe: no go ever comes
    assert not alone.timed_out
    capture = parse_capture(alone.stream)
    kinds = [r.type for r in capture.records]
    assert kinds.index("POWER") < kinds.index("POWEREND") < kinds.index("END")
    assert capture.of("POWEREND")[0].number("windows") == 0
    assert capture.of("END")[0].number("status") == 0
    plain = parse_capture(run_on_qemu(qemu, selftest_build("qemu-m55")[1].elf).stream)
    # the power build counts what the plain build counts, instruction for instruction
    assert [r.fields for r in capture.of("WHOLE")] == [r.fields for r in plain.of("WHOLE")]
    assert [r.fields for r in capture.of("LAYER")] == [r.fields for r in plain.of("LAYER")]
