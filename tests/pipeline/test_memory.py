"""The memory plan stage: placed before any source is fetched, refused there when it cannot fit.

No engine sources are needed: the plan comes from the model and the config alone, so these run
in the default session with an empty cache and ``--offline`` (a fetch would fail loudly).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fcmodel import fully_connected_model

from hpx_core import pipeline
from hpx_core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
KWS = ROOT / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"
TIER1 = ROOT / "tests" / "fixtures" / "executorch_tier1" / "tier1_arm.pte"


@pytest.fixture(autouse=True)
def empty_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    return cache


@pytest.fixture(scope="module")
def huge_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """17 MB of weights: more than any memory of either emulated board can hold."""
    path = tmp_path_factory.mktemp("models") / "huge_fc.tflite"
    path.write_bytes(fully_connected_model(4096, 4352))
    return path


@pytest.fixture(scope="module")
def large_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Just over 512 KB: more than qemu-m55's ITCM."""
    path = tmp_path_factory.mktemp("models") / "large_fc.tflite"
    path.write_bytes(fully_connected_model(1024, 520))
    return path


def _profile(model: Path, tmp_path: Path, stages: list[str], until: str | None = None,
             **values: str) -> pipeline.ProfileOutcome:
    flags = {key.replace("__", "."): (value, "test") for key, value in values.items()}
    flags |= {"build.offline": (True, "test"), "output.dir": (str(tmp_path / "out"), "test")}
    return pipeline.profile(model, None, flags, on_stage=stages.append, until=until)


@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
def test_a_model_no_memory_can_hold_is_refused_before_any_fetch(
    board: str, huge_model: Path, tmp_path: Path, empty_cache: Path
) -> None:
    stages: list[str] = []
    with pytest.raises(ConfigError) as caught:
        _profile(huge_model, tmp_path, stages, engine__type="tflm", target__board=board)
    assert stages[-1] == "memory plan"
    assert caught.value.message.startswith(f"region ITCM of {board} (")
    assert "cannot hold the code (at least " in caught.value.message
    assert f"the model ({huge_model.stat().st_size:,} bytes)" in caught.value.message
    assert caught.value.hint.startswith(f"the model fits no memory of {board} (the largest")
    assert not empty_cache.exists() and not (tmp_path / "hpx-work").exists()


def test_a_named_place_too_small_is_refused_with_the_option_that_fixes_it(
    large_model: Path, tmp_path: Path
) -> None:
    stages: list[str] = []
    with pytest.raises(ConfigError) as caught:
        _profile(large_model, tmp_path, stages, engine__type="tflm", engine__backend="cmsis_nn",
                 target__board="qemu-m55", model__location="code")
    assert stages[-1] == "memory plan"
    assert caught.value.message.startswith("region ITCM of qemu-m55 (524,288 bytes) cannot hold")
    assert caught.value.hint == "set model.location: flash (QSPI, 8,388,608 bytes free)"


def test_a_model_over_the_code_memory_is_planned_into_flash(large_model: Path,
                                                           tmp_path: Path) -> None:
    outcome = _profile(large_model, tmp_path, [], until="memory plan", engine__type="tflm",
                       target__board="qemu-m55")
    assert outcome.layout is not None
    model = outcome.layout.place("model")
    assert (model.region, model.word, model.chosen) == ("QSPI", "flash", False)
    assert outcome.layout.place("arena").region == "SRAM"


def test_the_mlperf_kws_model_keeps_the_default_places(tmp_path: Path) -> None:
    outcome = _profile(KWS, tmp_path, [], until="memory plan", engine__type="tflm",
                       target__board="qemu-m55")
    assert outcome.layout is not None
    assert [(p.region, p.section) for p in outcome.layout.placements] == [("ITCM", ""),
                                                                         ("SRAM", "")]


def test_executorch_places_its_own_buffers_and_refuses_the_single_arena_option(
    tmp_path: Path
) -> None:
    outcome = _profile(TIER1, tmp_path, [], until="memory plan", engine__type="executorch",
                       engine__backend="arm", target__board="qemu-m55")
    assert outcome.layout is not None
    assert [p.need.name for p in outcome.layout.placements] == [
        "program", "planned_arena", "method_arena", "temporary_arena", "io"]
    with pytest.raises(ConfigError, match=r"model\.arena_location places a single tensor arena"):
        _profile(TIER1, tmp_path, [], engine__type="executorch", engine__backend="arm",
                 target__board="qemu-m55", model__arena_location="sram")
