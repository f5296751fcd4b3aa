"""hpx profile runs its stages in order and refuses early what cannot work."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core import pipeline
from hpx_core.errors import ConfigError, LicenseError, ToolError, UsageError

MODELS = Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny"
KWS = MODELS / "kws_ref_model.tflite"
TIER1 = Path(__file__).resolve().parents[1] / "fixtures" / "pte" / "tier1.pte"


def _profile(model: Path | None, **overrides: str) -> pipeline.ProfileOutcome:
    flags = {k.replace("__", "."): (v, f"--{k}") for k, v in overrides.items()}
    return pipeline.profile(model, None, flags)


def test_ambiq_licensed_provider_refused_before_any_fetch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    with pytest.raises(LicenseError) as caught:
        _profile(TIER1, engine__type="executorch", engine__backend="ns")
    assert "LicenseRef-Ambiq-Apollo-SDK" in caught.value.message
    assert "qemu-m55" in caught.value.message
    assert "executorch --backend arm" in caught.value.hint
    assert not cache.exists()


@pytest.mark.parametrize("toolchain", ["clang", "atfe"])
def test_a_missing_toolchain_is_refused_before_any_fetch_or_build(
    toolchain: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    cache, results = tmp_path / "cache", tmp_path / "out" / "results"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no clang, no ATfE
    monkeypatch.delenv("ATFE_ROOT", raising=False)
    monkeypatch.delenv("HPX_CLANG", raising=False)
    with pytest.raises(ToolError) as caught:
        _profile(KWS, engine__type="tflm", target__toolchain=toolchain,
                 output__dir=str(results))
    assert caught.value.message.startswith(f"toolchain {toolchain} is not available")
    hint = caught.value.hint
    assert ("clang-19 lld-19" in hint) if toolchain == "clang" else ("ATFE_ROOT" in hint)
    assert not cache.exists() and not (tmp_path / "out").exists()


def test_engine_must_read_the_model_format() -> None:
    with pytest.raises(ConfigError) as caught:
        _profile(TIER1, engine__type="tflm")
    assert "reads tflite models, but tier1.pte is a pte model" in caught.value.message


def test_missing_model_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no model given"):
        _profile(None)


def test_unknown_board_points_at_target_board() -> None:
    with pytest.raises(ConfigError) as caught:
        _profile(KWS, target__board="qemu-m5")
    assert "did you mean 'qemu-m55'" in caught.value.message


@pytest.mark.parametrize(("model", "board", "engine"), [
    (KWS, "qemu-m55", "tflm"), (TIER1, "qemu-m55", "executorch"), (TIER1, "apollo510_evb",
                                                                    "executorch")])
def test_without_an_engine_the_one_that_reads_the_model_and_may_run_is_chosen(
    model: Path, board: str, engine: str
) -> None:
    from hpx_core.config.validate import validate_config

    validated = validate_config(None, {"model.path": (str(model), "MODEL"),
                                       "target.board": (board, "--board")})
    assert validated.config.engine.type == engine
    assert "the one installed engine that reads" in validated.document.origin("engine.type")


def test_several_engines_for_one_model_must_be_named() -> None:
    with pytest.raises(ConfigError) as caught:
        _profile(KWS, target__board="apollo510_evb")
    assert "3 installed engines read tflite models and may run on apollo510_evb" in (
        caught.value.message)
    assert caught.value.hint.endswith("helia-aot, helia-rt, tflm")
