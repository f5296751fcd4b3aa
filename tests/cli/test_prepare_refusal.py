"""A model TFLite Micro cannot prepare (an int8 Softmax whose output scale is not 1/256, made
from the real KWS model) is refused by `hpx config validate` and `hpx profile` alike: one
error line naming the operator and the scale, one hint, no traceback, nothing in the cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from tflite_edit import with_output_quantization

from hpx_core.cli import main
from hpx_core.errors import ModelError

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
APOLLO = "apollo330mP_evb"  # helia-rt is only validated here: nothing runs


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def softmax_1_128(tmp_path: Path) -> Path:
    path = tmp_path / "kws_softmax_1_128.tflite"
    path.write_bytes(with_output_quantization(KWS, 12, 1 / 128, -128))
    return path


def _refused(capsys: pytest.CaptureFixture[str], *args: str | Path) -> list[str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == ModelError.exit_code, (out, err)
    assert "Traceback" not in out + err
    lines = [line for line in err.splitlines() if line.strip()]
    assert [line.split(":", 1)[0] for line in lines] == ["error", "hint"], err
    return lines


def _names_operator_and_scale(lines: list[str]) -> None:
    error, hint = lines
    assert "kws_softmax_1_128.tflite" in error and "operator 12 (SOFTMAX)" in error
    assert "scale 0.0078125" in error and "requires scale 1/256 and zero point -128" in error
    assert "operator 12 (SOFTMAX) to scale 1/256" in hint


@pytest.mark.parametrize(("engine", "board"), [("tflm", "qemu-m55"), ("helia-rt", APOLLO)])
def test_config_validate_names_the_operator_and_scale(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, cache: Path, softmax_1_128: Path,
        engine: str, board: str) -> None:
    config = tmp_path / "hpx.yaml"
    config.write_text(f"model: {{path: {softmax_1_128}}}\nengine: {{type: {engine}}}\n"
                      f"target: {{board: {board}}}\n", encoding="utf-8")
    _names_operator_and_scale(_refused(capsys, "config", "validate", config))
    assert not cache.exists() or not any(cache.iterdir())


def test_profile_refuses_before_anything_is_fetched_or_kept(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, cache: Path,
        softmax_1_128: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    _names_operator_and_scale(_refused(capsys, "profile", softmax_1_128, "--engine", "tflm",
                                       "--board", "qemu-m55"))
    assert not cache.exists() or not any(cache.iterdir())
