"""``--power`` (``power:`` in the config) refused before anything is fetched, each refusal
naming its fix: an emulated board, a board whose pads hpx does not drive, the driver not
installed, no instrument attached, a board farm's place. The power firmware's build is in
tests/boards/test_apollo_power_build.py, a whole run in tests/boards/test_apollo_power_e2e.py."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_joulescope import FakeDriver, piecewise

from hpx_core.cli import main
from hpx_core.config.validate import overrides, validate_config
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.power_pass import PowerPass
from hpx_core.plugins import default_registry

KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")
SIGNALS = piecewise(1_000_000, [(100, 0.001, 0)])


def profile(tmp_path: Path, board: str, *extra: str) -> list[str]:
    return ["profile", str(KWS), "--engine", "tflm", "--board", board, "--output-dir",
            str(tmp_path / "results"), *extra]


def refused(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[str, str]:
    """The error and hint lines of a run that must stop with an HpxError."""
    assert main(argv) != 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith(("error:", "hint:"))]
    assert len(lines) == 2, err
    return lines[0], lines[1]


def driver_with(devices: tuple[str, ...]) -> Callable[[], FakeDriver]:
    return lambda: FakeDriver(SIGNALS, devices=devices)


def test_an_emulated_board_is_refused_before_anything_is_fetched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    error, hint = refused(capsys, profile(tmp_path, "qemu-m55", "--power"))
    assert error == "error: energy is measured on silicon boards; qemu-m55 is emulated"
    assert "--board apollo510_evb --power" in hint
    assert not (tmp_path / "hpx-work").exists() and not (tmp_path / "results").exists()


def test_a_board_whose_pads_hpx_does_not_drive_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    error, _ = refused(capsys, profile(tmp_path, "apollo3p_evb", "--power"))
    assert error == "error: apollo3p_evb has no power GPIOs hpx drives"


def test_without_the_extra_the_refusal_names_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyjoulescope_driver", None)
    error, hint = refused(capsys, profile(tmp_path, "apollo510_evb", "--power"))
    assert "Joulescope driver (pyjoulescope_driver), which is not installed" in error
    assert hint == 'hint: install the extra: pip install "hpx-core[power]"'


def test_no_instrument_attached_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hpx_core.power.readiness.load_driver", lambda: driver_with(()))
    error, hint = refused(capsys, profile(tmp_path, "apollo510_evb", "--power"))
    assert error == "error: 0 Joulescopes are attached"
    assert "hpx doctor lists instruments" in hint


def test_an_attached_instrument_passes_the_check_and_a_farm_place_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hpx_core.power.readiness.load_driver",
                        lambda: driver_with(("u/js220/002557",)))
    registry = default_registry()
    asked = overrides("test", model__path=str(KWS), engine__type="tflm",
                      target__board="apollo510_evb", power__enabled=True)
    PowerPass().check(RunContext(validate_config(None, asked, registry), registry))
    error, hint = refused(capsys, profile(tmp_path, "apollo510_evb", "--power", "--place",
                                          "bench-1"))
    assert error.startswith("error: energy is measured on a board at this host")
    assert "without --place" in hint


def test_power_in_a_config_file_is_located(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "power.yaml"
    config.write_text(f"model:\n  path: {KWS}\ntarget:\n  board: apollo510_evb\n"
                      "power:\n  enabled: true\n  inputs: [1, 1]\n  sampel_rate: 10000\n")
    assert main(["config", "validate", str(config)]) != 0
    err = capsys.readouterr().err
    assert f"{config}:8:3: unknown key 'power.sampel_rate'; did you mean 'sample_rate'?" in err
    config.write_text(config.read_text().replace("sampel_rate", "sample_rate"))
    assert main(["config", "validate", str(config)]) != 0
    err = capsys.readouterr().err
    assert f"{config}:7:11: power.inputs: must be two different inputs" in err
