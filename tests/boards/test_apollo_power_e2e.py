"""``hpx profile KWS --board apollo510_evb --power`` through the whole pipeline, with a fake
probe (pyocd's surface) and a fake Joulescope (the driver's), everything else real.

The firmware is KWS on upstream TFLite Micro built for the Apollo510 with the power pass by the
real toolchain from the pinned sources. The fake board plays the stream the same firmware sends
on qemu-m55 (re-addressed to the Apollo510, with the power pass's records), waiting at POWER for
the host's go; the instrument replays a trace of known currents: three whole inferences and
three of KWS's 13 layers each. The bundle's energy must be the trace's integrals.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_joulescope import DEVICE, FakeDriver, piecewise
from fake_pyocd import Bench, FakeError, FakeProbe, FakeTarget, FakeTargetSupportError, Firmware
from power_pass_fakes import pass_pieces, with_power_records
from profiles import profile_run

from hpx_core.boards import get_board
from hpx_core.config.validate import overrides
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.pipeline import profile
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import Links
from hpx_core.report.html import bundle_report
from hpx_core.results import verify_bundle
from hpx_core.results.view import load_view

pytestmark = pytest.mark.e2e
KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
BOARD = "apollo510_evb"
RATE, VOLTS = 100_000, 3.3
ITERATIONS, LAYERS = 3, 13
WHOLE_AMPS = (0.0050, 0.0052, 0.0051)
LAYER_AMPS = tuple(0.001 + 0.0003 * i for i in range(LAYERS))
IDLE_AMPS = 0.0004
WHOLE, LAYER, IDLE = 400, 40, 150


def settings(work: Path, **more: object) -> dict[str, tuple[object, str]]:
    return overrides("test", engine__type="tflm", engine__backend="cmsis_nn",
                     target__board=BOARD, output__dir=str(work / "results"),
                     profiling__iterations=ITERATIONS, profiling__warmup=1,
                     power__enabled=True, **more)


def trace() -> list[tuple[int, float, int]]:
    return pass_pieces(WHOLE_AMPS, LAYER_AMPS, whole=WHOLE, layer=LAYER, idle=IDLE,
                       idle_amps=IDLE_AMPS)


def uj(samples: int, amps: float) -> float:
    return samples * amps * VOLTS / RATE * 1e6


def test_profile_with_power_reports_the_traces_energy_per_inference_and_layer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    qemu = profile_run(KWS, "tflm", "qemu-m55", tmp_path / "qemu", backend="cmsis_nn",
                       iterations=ITERATIONS)
    assert qemu.record is not None
    stream, power_at = with_power_records(
        (qemu.record.bundle / "capture.bin").read_bytes(), ITERATIONS, board=BOARD)
    built = profile(KWS, None, settings(tmp_path), until="kernel verification")
    assert built.build is not None
    symbols = {s.name: s.address for s in symbol_inventory(built.build.elf).symbols}
    board = get_board(BOARD)
    firmware = Firmware(stream=stream, cb_address=symbols["_SEGGER_RTT"],
                        buffer_address=symbols["_SEGGER_RTT"] + 0x100, buffer_size=1024,
                        chunk=509, power_at=power_at, go_address=symbols["hpx_power_go"])
    desk = Bench([FakeProbe("000440112233", "J-Link OB Apollo510 EVB")],
                 FakeTarget([(r.origin, r.length) for r in board.memory], firmware),
                 known_targets={"ap510nfa_cbr"})
    fake_pyocd = PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                          FakeTargetSupportError)
    monkeypatch.setattr("hpx_core.probe.runner.installed_links", lambda: Links(fake_pyocd))
    monkeypatch.setattr("hpx_core.probe.runner.pyocd_api", lambda: fake_pyocd)
    signals = piecewise(RATE, trace(), volts=VOLTS)
    driver = lambda: FakeDriver(signals, sample_rate=RATE)  # noqa: E731
    monkeypatch.setattr("hpx_core.power.joulescope.load_driver", lambda: driver)
    monkeypatch.setattr("hpx_core.power.readiness.load_driver", lambda: driver)
    from hpx_core.cli import main

    code = main(["profile", str(KWS), "--engine", "tflm", "--backend", "cmsis_nn", "--board",
                 BOARD, "--power", "--iterations", str(ITERATIONS), "--warmup", "1",
                 "--output-dir", str(tmp_path / "results"), "-c", str(_config(tmp_path))])
    out = capsys.readouterr().out
    assert code == 0, out
    print(out)  # the console, for the record (pytest -s)
    assert desk.target.go_attached == 1 and desk.target.resets == 1
    (bundle,) = [b for b in (tmp_path / "results").iterdir() if b.name.endswith("complete")]
    assert verify_bundle(bundle).status == "complete"
    energy = json.loads((bundle / "summary.json").read_text())["energy"]
    assert energy["per_inference_uj"] == pytest.approx([uj(WHOLE, a) for a in WHOLE_AMPS],
                                                       abs=1e-3)
    assert [x["median_uj"] for x in energy["layers"]] == pytest.approx(
        [uj(LAYER, a) for a in LAYER_AMPS], abs=1e-3)
    assert energy["idle_floor_mw"] == pytest.approx(IDLE_AMPS * VOLTS * 1e3, abs=1e-3)
    assert energy["instrument"] == "joulescope" and energy["sample_rate"] == RATE
    assert (bundle / "energy_windows.npz").is_file()
    run = json.loads((bundle / "run.json").read_text())
    assert run["power"]["instrument"] == DEVICE
    assert "µJ" in out and f"energy: {uj(WHOLE, 0.0051):.3f} µJ per inference" in out
    events = json.loads((bundle / "trace.json").read_text())["traceEvents"]
    counter = [e["args"]["uJ"] for e in events if e["name"] == "energy (µJ)"]
    assert counter[:LAYERS] == [x["median_uj"] for x in energy["layers"]]  # Perfetto's track
    page = bundle_report(load_view(bundle))
    assert 'class="chart energy-chart"' in page and "<th>µJ</th>" in page


def _config(work: Path) -> Path:
    """The power section a user writes (the instrument's rate here is the fake's)."""
    config = work / "power.yaml"
    config.write_text(f"power:\n  sample_rate: {RATE}\n  supply: VDD_MCU\n")
    return config
