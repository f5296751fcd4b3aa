"""``--check-layers`` on qemu-m55: every MLPerf Tiny layer exact, a planted fault found.

Needs the pinned sources (mirrors or network), the Arm toolchain and QEMU.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from profiles import profile_run

from hpx_core.errors import ConfigError
from hpx_core.pipeline import ProfileOutcome
from hpx_core.pipeline.layer_check_pass import NAME as LAYER_CHECK
from hpx_core.pipeline.workdir import WORK_FOLDER
from hpx_core.results.layer_check import LayerCheck

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
KWS = MODELS / "kws_ref_model.tflite"
MODEL_FILES = ["kws_ref_model.tflite", "vww_96_int8.tflite", "pretrainedResnet_quant.tflite",
               "ad01_int8.tflite"]
FAULT_LAYER = 5


def checked(model: Path, work: Path, backend: str = "reference", mode: str = "first",
            **settings: object) -> ProfileOutcome:
    return profile_run(model, "tflm", "qemu-m55", work, backend=backend, iterations=3,
                       check_layers=mode, **settings)


@pytest.fixture(scope="module")
def faulted(tmp_path_factory: pytest.TempPathFactory) -> ProfileOutcome:
    """KWS with one element of layer 5's output perturbed in the check pass."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HPX_TEST_FAULT_LAYER", str(FAULT_LAYER))
        return checked(KWS, tmp_path_factory.mktemp("fault"))


@pytest.mark.parametrize("backend", ["reference", "cmsis_nn"])
@pytest.mark.parametrize("name", MODEL_FILES)
def test_every_layer_is_exact_against_the_host(name: str, backend: str, tmp_path: Path) -> None:
    outcome = checked(MODELS / name, tmp_path, backend)
    assert outcome.record is not None
    check = outcome.record.result(LAYER_CHECK, LayerCheck)
    assert check is not None
    assert check.exact, [(v.index, v.status) for v in check.layers]
    assert len(check.layers) == len(outcome.measurement.layers)  # type: ignore[union-attr]
    summary = json.loads((outcome.bundle / "summary.json").read_text())  # type: ignore[operator]
    assert summary["layer_check"]["counts"]["exact"] == len(check.layers)


def test_the_planted_fault_is_reported_at_its_layer(faulted: ProfileOutcome) -> None:
    check = faulted.record.result(LAYER_CHECK, LayerCheck)  # type: ignore[union-attr]
    assert check is not None and check.first_divergent is not None
    assert check.first_divergent.index == FAULT_LAYER
    statuses = [v.status for v in check.layers]
    assert statuses[:FAULT_LAYER] == ["exact"] * FAULT_LAYER
    assert statuses[FAULT_LAYER] == "different"
    assert statuses[FAULT_LAYER + 1] == "inherited"  # the next layer reads the perturbed tensor
    out = next(t for t in check.tensors if t.role == "out")
    assert (out.layer, out.mismatched, out.max_steps, out.position) == (FAULT_LAYER, 1, 1,
                                                                         (0, 0, 0, 0))
    bundle = faulted.bundle
    assert bundle is not None
    device = np.load(bundle / f"layer_check-{FAULT_LAYER}-out0-device.npy")
    host = np.load(bundle / f"layer_check-{FAULT_LAYER}-out0-host.npy")
    assert int(device.ravel()[0]) - int(host.ravel()[0]) in (1, -255)
    assert np.array_equal(np.load(bundle / f"layer_check-{FAULT_LAYER}-in0-device.npy"),
                          np.load(bundle / f"layer_check-{FAULT_LAYER}-in0-host.npy"))


def test_the_check_changes_no_counted_number(faulted: ProfileOutcome, tmp_path: Path) -> None:
    """Every count, raw or corrected, is identical with and without the check."""
    plain = profile_run(KWS, "tflm", "qemu-m55", tmp_path, backend="reference", iterations=3)
    with_check, without = faulted.measurement, plain.measurement
    assert with_check is not None and without is not None
    assert with_check.whole_median == without.whole_median == 41_919_065
    assert [x.median for x in with_check.layers] == [x.median for x in without.layers]
    assert with_check.whole_raw == without.whole_raw
    assert [x.raw for x in with_check.layers] == [x.raw for x in without.layers]
    assert with_check.calibration_raw == without.calibration_raw


def test_a_board_without_ram_for_the_staging_is_refused_before_building(tmp_path: Path) -> None:
    vww = MODELS / "vww_96_int8.tflite"
    with pytest.raises(ConfigError, match=r"--check-layers needs 36864 bytes of RAM"):
        profile_run(vww, "tflm", "qemu-m4", tmp_path, backend="reference", until="build",
                    check_layers="first", arena_size=4 * 1024 * 1024 - 16 * 1024)
    # the work folders are beside the output folder (tmp_path/results): none was built
    assert not list((tmp_path / WORK_FOLDER).glob("*/build/hpx_app.elf"))
