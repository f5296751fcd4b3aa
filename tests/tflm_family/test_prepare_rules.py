"""The quantization TFLite Micro's kernels refuse in Prepare, found in the model file: checked
against the real tflite-micro interpreter on real (edited) models."""

from __future__ import annotations

from pathlib import Path

import pytest
from hpx_tflm_family import InputSpec, check_model, input_bytes
from hpx_tflm_family.reference import interpret
from tflite_edit import with_output_quantization

from hpx_core.errors import ModelError
from hpx_core.reading import load_model

MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
KWS = MODELS / "kws_ref_model.tflite"
SOFTMAX = 12  # KWS's last operator
INT16 = 7

EDITS = {  # name -> (scale, zero point, tensor type) of KWS's Softmax output
    "int8 scale 1/128": (1 / 128, -128, None),
    "int8 zero point -127": (1 / 256, -127, None),
    "int16 scale off by 9%": (1 / 60000, -32768, INT16),
}


def _edited(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "softmax.tflite"
    path.write_bytes(with_output_quantization(KWS, SOFTMAX, *EDITS[name]))
    return path


def _host_refusal(path: Path) -> str | None:
    model = load_model(path)
    try:
        interpret(path.read_bytes(), input_bytes(InputSpec.parse("zeros"), model), model)
    except ModelError as error:
        return error.message
    return None


@pytest.mark.parametrize("name", sorted(p.name for p in MODELS.glob("*.tflite")))
def test_the_mlperf_tiny_models_are_not_refused(name: str) -> None:
    assert check_model(load_model(MODELS / name)) is None


@pytest.mark.parametrize("name", EDITS, ids=str)
def test_a_softmax_tflm_refuses_is_refused_naming_operator_and_values(
        tmp_path: Path, name: str) -> None:
    path = _edited(tmp_path, name)
    refusal = check_model(load_model(path))
    assert refusal is not None
    assert "operator 12 (SOFTMAX)" in refusal.message and "operator 12" in refusal.hint
    _, zero, _ = EDITS[name]
    assert f"and zero point {zero}, its kernel requires" in refusal.message
    assert "\n" not in refusal.message + refusal.hint
    host = _host_refusal(path)  # the real interpreter refuses the same operator
    assert host is not None and "operator 12 (SOFTMAX) failed to prepare" in host


def test_the_int8_softmax_rule_says_one_over_256(tmp_path: Path) -> None:
    refusal = check_model(load_model(_edited(tmp_path, "int8 scale 1/128")))
    assert refusal is not None
    assert "int8 output has scale 0.0078125" in refusal.message
    assert "requires scale 1/256 and zero point -128" in refusal.message


def test_a_softmax_int16_output_tflm_accepts_is_not_refused(tmp_path: Path) -> None:
    path = tmp_path / "softmax16.tflite"
    path.write_bytes(with_output_quantization(KWS, SOFTMAX, 1 / 65536, -32768, INT16))
    assert check_model(load_model(path)) is None
    assert _host_refusal(path) is None


def test_a_model_a_run_took_to_its_firmware_is_not_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check alone keeps nothing; once a run made the model's firmware, the next check of
    the same bytes reads the kept answer, not the model."""
    from hpx_tflm_family import prepare_rules

    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    model = load_model(KWS)
    assert check_model(model) is None
    assert not cache.exists()
    prepare_rules.keep_passed_check(model)
    monkeypatch.setattr(prepare_rules, "prepare_refusals",
                        lambda data: pytest.fail("the model was read again"))
    assert check_model(model) is None
