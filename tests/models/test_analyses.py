"""A model file read before is not parsed again: its analysis comes from the hpx cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from hpx_core import reading
from hpx_core.models import analyses, tflite_reader
from hpx_core.models.info import ModelInfo
from hpx_core.plugins import default_registry, load_registry
from hpx_core.reading import keep_model, load_model, readers_identity

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(analyses, "_held", type(analyses._held)())  # nothing held in memory
    copy = tmp_path / "kws.tflite"
    shutil.copyfile(KWS, copy)
    return copy


def _no_reader(*_args: object) -> ModelInfo:
    raise AssertionError("the model was parsed again")


def _forget_held(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new process: only the cache on disk remembers."""
    monkeypatch.setattr(analyses, "_held", type(analyses._held)())


def test_a_second_read_is_the_kept_analysis_under_the_callers_path(
    model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = load_model(model)
    assert len(first.operators) > 5 and first.inputs[0].dtype == "int8"
    keep_model(first, default_registry())
    _forget_held(monkeypatch)
    monkeypatch.setattr(tflite_reader, "read_tflite", _no_reader)
    moved = model.rename(model.with_name("renamed.tflite"))
    again = load_model(moved)
    assert again.path == moved
    assert again == attrs.evolve(first, path=moved)


def test_a_process_parses_a_model_once(model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = load_model(model)  # not kept on disk: held in memory for this process
    monkeypatch.setattr(tflite_reader, "read_tflite", _no_reader)
    assert load_model(model) == first
    assert not analyses.ANALYSES.path("x").parent.exists()


@pytest.mark.parametrize("damage", ["a damaged entry", "another reader", "an edited entry"])
def test_the_model_is_read_again_after(
    damage: str, model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = default_registry()
    first = load_model(model)
    keep_model(first, registry)
    _forget_held(monkeypatch)
    kept = analyses.ANALYSES.path(f"{first.sha256}-{readers_identity(registry)}")
    if damage == "a damaged entry":
        kept.write_text('{"sha256": "', encoding="utf-8")
    elif damage == "an edited entry":  # valid JSON, the shape kept: only the seal tells
        edited = kept.read_text(encoding="utf-8").replace('"CONV_2D"', '"FAKE_OP"')
        assert edited != kept.read_text(encoding="utf-8")
        kept.write_text(edited, encoding="utf-8")
    else:  # an edited reader or another schema package: another identity
        monkeypatch.setattr(reading, "reader_identity", lambda *_: "an-edited-reader")
    monkeypatch.setattr(tflite_reader, "read_tflite", _no_reader)
    with pytest.raises(AssertionError, match="parsed again"):
        load_model(model)


def test_the_identity_is_of_the_readers_asked() -> None:
    """Another set of readers is another identity; an engine whose plugin reads nothing asks
    the same readers in the same order as no engine at all."""
    registry = default_registry()
    anyone = readers_identity(registry)
    assert readers_identity(load_registry(disabled=["executorch"])) != anyone
    assert readers_identity(load_registry(no_plugins=True)) != anyone
    assert readers_identity(registry, "tflm") == anyone


def test_reading_alone_keeps_nothing(model: Path) -> None:
    load_model(model)  # a check, or a run refused later: the cache stays as it was
    assert not analyses.ANALYSES.path("x").parent.exists()
