"""``hpx profile`` with helia-aot on an Apollo board, through the hooks: with no probe attached
it stops after the build and the kernel checks, naming the firmware."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.pipeline import StageUnavailableError, profile
from hpx_core.probe.probes import list_probes
from hpx_core.probe.pyocd_api import pyocd_api

from .conftest import MODELS


def probe_attached() -> bool:
    try:
        return bool(list_probes(pyocd_api()))
    except Exception:  # no pyocd backend, no USB access: no probe
        return False


def overrides(tmp_path: Path) -> dict[str, tuple[str, str]]:
    return {"engine.type": ("helia-aot", "--engine"),
            "target.board": ("apollo510_evb", "--board"),
            "output.dir": (str(tmp_path / "out"), "--output")}


@pytest.mark.e2e
def test_without_a_probe_the_profile_stops_after_the_checked_build(tmp_path: Path) -> None:
    if probe_attached():
        pytest.skip("a probe is attached: the profile would run on the EVB")
    stages: list[str] = []
    with pytest.raises(StageUnavailableError) as caught:
        profile(MODELS / "kws_ref_model.tflite", None, overrides(tmp_path),
                on_stage=stages.append)
    assert "hpx_app.elf" in caught.value.message and "apollo510_evb" in caught.value.message
    assert stages[-1] == "run, capture and results" and "kernel verification" in stages


@pytest.mark.hardware
def test_kws_profiles_on_an_attached_evb(tmp_path: Path) -> None:
    if not probe_attached():
        pytest.skip("no debug probe attached")
    outcome = profile(MODELS / "kws_ref_model.tflite", None, overrides(tmp_path))
    state = outcome
    assert state.bundle is not None and state.bundle.is_dir()
    assert all(f.passed for f in state.findings)
    assert state.measurement is not None and len(state.measurement.layers) == 13
    assert state.measurement.layers[0].name == "CONV_2D:0"
