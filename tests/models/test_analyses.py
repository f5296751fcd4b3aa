"""A model file read before is not parsed again: its analysis comes from the hpx cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from hpx_core.models import analyses, load_model, pte_reader, tflite_reader
from hpx_core.models.analyses import keep_analysis
from hpx_core.models.info import ModelInfo

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
TIER1 = REPO / "tests/fixtures/executorch_tier1/tier1_arm.pte"


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    copy = tmp_path / "kws.tflite"
    shutil.copyfile(KWS, copy)
    return copy


def _no_reader(*_args: object) -> ModelInfo:
    raise AssertionError("the model was parsed again")


def test_a_second_read_is_the_kept_analysis_under_the_callers_path(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_model(model)
    assert len(first.operators) > 5 and first.inputs[0].dtype == "int8"
    keep_analysis(first)
    monkeypatch.setattr(tflite_reader, "read_tflite", _no_reader)
    moved = model.rename(model.with_name("renamed.tflite"))
    again = load_model(moved)
    assert again.path == moved
    assert again == attrs.evolve(first, path=moved)


@pytest.mark.parametrize("damage", ["a damaged entry", "another reader", "an edited entry"])
def test_the_model_is_read_again_after(
    damage: str, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_model(model)
    keep_analysis(first)
    kept = analyses.ANALYSES.path(f"{first.sha256}-{analyses.reader_identity()}")
    if damage == "a damaged entry":
        kept.write_text('{"sha256": "', encoding="utf-8")
    elif damage == "an edited entry":  # valid JSON, the shape kept: only the seal tells
        edited = kept.read_text(encoding="utf-8").replace('"CONV_2D"', '"FAKE_OP"')
        assert edited != kept.read_text(encoding="utf-8")
        kept.write_text(edited, encoding="utf-8")
    else:  # an edited reader or another schema package: another identity
        monkeypatch.setattr(analyses, "reader_identity", lambda: "an-edited-reader")
    monkeypatch.setattr(tflite_reader, "read_tflite", _no_reader)
    with pytest.raises(AssertionError, match="parsed again"):
        load_model(model)


def test_a_program_is_kept_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    first = load_model(TIER1)
    assert first.program is not None
    keep_analysis(first)
    monkeypatch.setattr(pte_reader, "read_pte", _no_reader)
    assert load_model(TIER1) == first


def test_reading_alone_keeps_nothing(model: Path) -> None:
    load_model(model)  # a check, or a run refused later: the cache stays as it was
    assert not analyses.ANALYSES.path("x").parent.exists()
