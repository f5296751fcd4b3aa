"""``tflm`` end to end on the emulated boards: the four MLPerf Tiny models, checked.

Needs the pinned sources (mirrors or network), the Arm toolchain and QEMU. The engine library
is built once per backend/board and reused by every model.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from legacy_models import toco_style, with_old_while_code
from profiles import check_exact_profile, extra_of, profile_run

from hpx_core.models.tflite_fields import CONTROL_FLOW_CODE, SUBGRAPH_NAME
from hpx_core.pipeline import ProfileOutcome

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
MODEL_FILES = ["kws_ref_model.tflite", "vww_96_int8.tflite", "pretrainedResnet_quant.tflite",
               "ad01_int8.tflite"]
CONFIGS = [("reference", "qemu-m55"), ("cmsis_nn", "qemu-m55"), ("reference", "qemu-m4")]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tflm-e2e")


def _check(outcome: ProfileOutcome, model_path: Path) -> None:
    check_exact_profile(outcome, model_path, coverage=0.98)
    extra = extra_of(outcome)
    assert extra["allocated_arena"] and extra["arena_source"] == "probe"
    assert outcome.bundle is not None and (outcome.bundle / "summary.json").is_file()


@pytest.mark.parametrize(("backend", "board"), CONFIGS)
@pytest.mark.parametrize("name", MODEL_FILES)
def test_mlperf_tiny_profiles(name: str, backend: str, board: str, work: Path) -> None:
    path = MODELS / name
    outcome = profile_run(path, "tflm", board, work / f"{board}-{backend}-{path.stem}",
                          backend=backend)
    _check(outcome, path)


def test_kws_has_thirteen_layers_and_a_second_model_compiles_only_its_app(work: Path) -> None:
    first = profile_run(MODELS / "kws_ref_model.tflite", "tflm", "qemu-m55", work / "a")
    assert first.measurement is not None and len(first.measurement.layers) == 13
    second = profile_run(MODELS / "ad01_int8.tflite", "tflm", "qemu-m55", work / "b")
    assert second.contribution is not None and second.build is not None
    assert not second.contribution.libraries[0].built
    assert second.build.compiled <= 20  # harness + board + glue, never the engine's 160 files
    again = profile_run(MODELS / "ad01_int8.tflite", "tflm", "qemu-m55", work / "b")
    assert again.build is not None and again.build.compiled == 0
    assert again.measurement == second.measurement or (
        again.measurement is not None and second.measurement is not None
        and again.measurement.whole_median == second.measurement.whole_median)


def test_a_toco_style_model_runs_as_it_is_and_matches_the_host(work: Path, tmp_path: Path) -> None:
    model = toco_style(MODELS / "kws_ref_model.tflite", tmp_path / "person_detect.tflite")
    outcome = profile_run(model, "tflm", "qemu-m55", work / "toco")
    _check(outcome, model)
    assert outcome.model is not None and outcome.model.absent_fields == (SUBGRAPH_NAME,)
    assert outcome.model_copy is None  # TFLM reads no subgraph name


def test_an_old_control_flow_code_runs_from_a_copy_named_in_the_bundle(
    work: Path, tmp_path: Path
) -> None:
    toco = toco_style(MODELS / "kws_ref_model.tflite", tmp_path / "toco.tflite")
    model = with_old_while_code(toco, tmp_path / "person_detect.tflite")
    outcome = profile_run(model, "tflm", "qemu-m55", work / "while")
    _check(outcome, model)
    assert outcome.bundle is not None and outcome.model_copy is not None
    provenance = json.loads((outcome.bundle / "provenance.json").read_text())
    user_sha = hashlib.sha256(model.read_bytes()).hexdigest()
    assert provenance["model_copy"] == {
        "path": str(outcome.model_copy.path), "sha256": outcome.model_copy.sha256,
        "of": user_sha, "supplied": [CONTROL_FLOW_CODE]}
    summary = json.loads((outcome.bundle / "summary.json").read_text())
    assert summary["identity"]["model_sha256"] == user_sha, "results belong to the user's model"
