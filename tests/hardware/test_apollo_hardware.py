"""On a real Apollo510 EVB through its debug probe (marked hardware; skipped without one).

Run with ``pytest -m hardware``. HPX_TEST_PROBE picks a probe by unique ID when several are
attached; HPX_TEST_PACK points pyocd at the Ambiq CMSIS pack when it is not installed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hpx_core.cli import main
from hpx_core.errors import ToolError

pytestmark = pytest.mark.hardware

BOARD = "apollo510_evb"
KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def _probe_or_skip() -> list[str]:
    from hpx_core.probe.probes import list_probes
    from hpx_core.probe.pyocd_api import pyocd_api

    try:
        found = list_probes(pyocd_api())
    except ToolError as error:
        pytest.skip(f"pyocd is not usable: {error.message}")
    if not found:
        pytest.skip("no debug probe attached (connect the Apollo510 EVB's J-Link USB port)")
    args = []
    if uid := os.environ.get("HPX_TEST_PROBE"):
        args += ["--probe", uid]
    elif len(found) > 1:
        pytest.skip("several probes attached: set HPX_TEST_PROBE to the EVB's unique ID")
    return args


def _pack() -> list[str]:
    pack = os.environ.get("HPX_TEST_PACK")
    return ["--pack", pack] if pack else []


def test_selftest_on_the_apollo510_evb(tmp_path: Path) -> None:
    probe = _probe_or_skip()
    code = main(
        [
            "selftest",
            "--board",
            BOARD,
            "--work-dir",
            str(tmp_path / "work"),
            "--output-dir",
            str(tmp_path / "results"),
            *probe,
            *_pack(),
        ]
    )
    assert code == 0
    bundles = sorted((tmp_path / "results").iterdir())
    assert len(bundles) == 2
    summary = json.loads((bundles[0] / "summary.json").read_text())
    assert summary["status"] == "complete"
    assert summary["identity"]["counter_units"] == "cycles"


def test_kws_profile_on_the_apollo510_evb(tmp_path: Path) -> None:
    probe = _probe_or_skip()
    config = tmp_path / "hpx.yaml"  # hpx profile takes the probe from target.probe
    config.write_text(f'target:\n  probe: "{probe[1]}"\n' if probe else "target: {}\n")
    code = main(
        [
            "profile",
            "--config",
            str(config),
            str(KWS),
            "--engine",
            "tflm",
            "--backend",
            "cmsis_nn",
            "--board",
            BOARD,
            "--output-dir",
            str(tmp_path / "results"),
        ]
    )
    assert code == 0
    (bundle,) = (tmp_path / "results").iterdir()
    summary = json.loads((bundle / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["validity"] == "valid"
    layers = summary["measurement"]["layers"]
    assert layers and all(layer["median"] > 0 for layer in layers)
    assert summary["outputs"]["exact"], summary["outputs"]


def test_kws_pmu_events_in_two_passes_on_the_apollo510_evb(tmp_path: Path) -> None:
    probe = _probe_or_skip()
    events = ["INST_RETIRED", "MVE_INST_RETIRED", "L1D_CACHE_REFILL", "L1D_CACHE", "STALL"]
    code = main(
        ["profile", str(KWS), "--engine", "tflm", "--backend", "cmsis_nn", "--board", BOARD,
         "--counters", ",".join(events), "--output-dir", str(tmp_path / "results"),
         *probe]
    )
    assert code == 0
    (bundle,) = (tmp_path / "results").iterdir()
    summary = json.loads((bundle / "summary.json").read_text())
    assert summary["validity"] == "valid", summary["issues"]
    assert summary["extra"]["counters"]["passes"] == [events[:4], events[4:]]
    for layer in summary["measurement"]["layers"]:
        assert set(layer["events"]) == set(events)
        assert layer["events"]["INST_RETIRED"] > 0
