"""An engine gets the user's model, or a corrected copy when it lacks a field the engine needs."""

from __future__ import annotations

import hashlib
from pathlib import Path

from legacy_models import MLPERF_TINY, subgraph_name, toco_style

from hpx_core.models.tflite_fields import CONTROL_FLOW_CODE, SUBGRAPH_NAME
from hpx_core.pipeline.model_copy import model_for_engine
from hpx_core.reading import load_model

KWS = MLPERF_TINY / "kws_ref_model.tflite"


def test_a_model_with_every_needed_field_is_given_as_it_is(tmp_path: Path) -> None:
    model = load_model(KWS)
    given, copy = model_for_engine(model, [SUBGRAPH_NAME, CONTROL_FLOW_CODE], tmp_path / "model")
    assert given is model and copy is None
    assert not (tmp_path / "model").exists()


def test_a_field_the_engine_does_not_need_is_left_absent(tmp_path: Path) -> None:
    model = load_model(toco_style(KWS, tmp_path / "person_detect.tflite"))
    given, copy = model_for_engine(model, [CONTROL_FLOW_CODE], tmp_path / "model")
    assert given is model and copy is None


def test_a_missing_field_gives_the_engine_a_named_copy(tmp_path: Path) -> None:
    user_file = toco_style(KWS, tmp_path / "person_detect.tflite")
    model = load_model(user_file)
    given, copy = model_for_engine(model, [SUBGRAPH_NAME], tmp_path / "work" / "model")
    assert copy is not None
    assert given.path == copy.path == tmp_path / "work" / "model" / "person_detect.tflite"
    assert subgraph_name(copy.path) == b"main" and subgraph_name(user_file) is None
    assert copy.sha256 == given.sha256 == hashlib.sha256(copy.path.read_bytes()).hexdigest()
    assert copy.source_sha256 == model.sha256 != copy.sha256
    assert copy.provenance() == {"path": str(copy.path), "sha256": copy.sha256,
                                 "of": model.sha256, "supplied": [SUBGRAPH_NAME]}
