"""Fields older converters leave empty: found by the reader, supplied in a copy that runs alike."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hpx_tflm_family import InputSpec, host_outputs, input_bytes
from legacy_models import (
    MLPERF_TINY,
    WHILE,
    buffer_offsets,
    edited,
    raw_builtin_codes,
    subgraph_name,
    toco_style,
    with_old_while_code,
)

from hpx_core.contract import EngineDescriptor
from hpx_core.errors import ModelError, PluginError
from hpx_core.models.tflite_fields import (
    CONTROL_FLOW_CODE,
    SUBGRAPH_NAME,
    check_fields,
    write_with_fields,
)
from hpx_core.reading import load_model

KWS = MLPERF_TINY / "kws_ref_model.tflite"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("model", sorted(MLPERF_TINY.glob("*.tflite")), ids=lambda p: p.stem)
def test_the_mlperf_tiny_models_lack_nothing(model: Path) -> None:
    assert load_model(model).absent_fields == ()


def test_an_unnamed_subgraph_is_reported(tmp_path: Path) -> None:
    old = load_model(toco_style(KWS, tmp_path / "kws.tflite"))
    assert old.absent_fields == (SUBGRAPH_NAME,)
    assert [op.name for op in old.operators] == [op.name for op in load_model(KWS).operators]


def test_a_control_flow_code_without_builtin_code_is_reported(tmp_path: Path) -> None:
    old = with_old_while_code(KWS, tmp_path / "kws.tflite")
    assert load_model(old).absent_fields == (CONTROL_FLOW_CODE,)
    # the MLPerf KWS itself holds its (non control-flow) codes only in the deprecated field
    assert all(builtin == 0 for builtin, _ in raw_builtin_codes(KWS))


def test_the_copy_has_the_name_and_the_users_file_is_untouched(tmp_path: Path) -> None:
    old = toco_style(KWS, tmp_path / "kws.tflite")
    before = sha(old)
    copy = tmp_path / "work" / "kws.tflite"
    write_with_fields(old, [SUBGRAPH_NAME], copy)
    assert sha(old) == before and subgraph_name(old) is None
    assert subgraph_name(copy) == b"main"
    fixed = load_model(copy)
    assert fixed.absent_fields == ()
    original = load_model(KWS)
    assert fixed.operators == original.operators
    assert fixed.inputs == original.inputs and fixed.outputs == original.outputs
    assert fixed.weight_bytes == original.weight_bytes
    assert all(offset % 16 == 0 for offset in buffer_offsets(copy))
    assert [p.name for p in copy.parent.iterdir()] == ["kws.tflite"]  # no temporary left


def test_the_copy_computes_what_the_original_computes(tmp_path: Path) -> None:
    copy = tmp_path / "kws.tflite"
    write_with_fields(toco_style(KWS, tmp_path / "old" / "kws.tflite"), [SUBGRAPH_NAME], copy)
    model = load_model(KWS)
    inputs = input_bytes(InputSpec.parse("random", 7), model)
    expected = host_outputs(KWS.read_bytes(), inputs, model)
    assert host_outputs(copy.read_bytes(), inputs, load_model(copy)) == expected


def test_the_control_flow_code_is_filled_from_the_deprecated_one(tmp_path: Path) -> None:
    copy = tmp_path / "copy.tflite"
    write_with_fields(with_old_while_code(KWS, tmp_path / "old.tflite"), [CONTROL_FLOW_CODE], copy)
    codes = raw_builtin_codes(copy)
    assert codes[-1] == (WHILE, WHILE)
    assert all(builtin == 0 for builtin, _ in codes[:-1]), "only control flow is rewritten"
    assert load_model(copy).absent_fields == ()


def test_weights_outside_the_flatbuffer_are_refused(tmp_path: Path) -> None:
    def external(model: object) -> None:
        buffer = model.buffers[1]  # type: ignore[attr-defined]
        buffer.data, buffer.offset, buffer.size = None, 64, 16

    old = edited(toco_style(KWS, tmp_path / "a.tflite"), tmp_path / "b.tflite", external)
    with pytest.raises(ModelError, match="outside the flatbuffer"):
        write_with_fields(old, [SUBGRAPH_NAME], tmp_path / "copy.tflite")
    assert not (tmp_path / "copy.tflite").exists()


def test_an_engine_may_only_name_fields_hpx_can_supply() -> None:
    assert check_fields([SUBGRAPH_NAME]) == (SUBGRAPH_NAME,)
    with pytest.raises(PluginError, match="signature_defs"):
        EngineDescriptor("x", ("tflite",), dict, model_fields=("signature_defs",))
