"""A model larger than qemu-m55's 512 KB code memory, end to end: placed where it fits, built,
run, and equal to the host reference; a placement that cannot fit ends in the plan's sentence,
whether the estimate or the linker finds it.

Needs the pinned tflm sources, the Arm toolchain and QEMU.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fcmodel import fully_connected_model
from hpx_tflm import engine as tflm_engine
from profiles import outputs_exact

from hpx_core import pipeline
from hpx_core.config.validate import overrides
from hpx_core.contract import CodeSize
from hpx_core.errors import ConfigError

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("models")
    made = {"over_512k": fully_connected_model(1024, 520),  # 535,240 bytes
            "near_512k": fully_connected_model(1024, 480)}  # fits ITCM beside the least code
    for name, data in made.items():
        (folder / f"{name}.tflite").write_bytes(data)
    return {name: folder / f"{name}.tflite" for name in made}


def _profile(model: Path, board: str, work: Path, backend: str = "cmsis_nn",
             **model_section: str) -> pipeline.ProfileOutcome:
    settings = overrides("test", engine__type="tflm", engine__backend=backend,
                         target__board=board, output__dir=str(work / "results"),
                         profiling__iterations=3, profiling__warmup=1,
                         **{f"model__{key}": value for key, value in model_section.items()})
    return pipeline.profile(model, None, settings)


def _checked(outcome: pipeline.ProfileOutcome, region: str) -> None:
    m = outcome.measurement
    assert m is not None and m.validity == "valid", m and m.issues
    assert all(layer.spread == 0 for layer in m.layers) and len(set(m.whole)) == 1
    assert outputs_exact(outcome)
    assert outcome.placement is not None
    placed = {b.buffer.symbol: b.region for b in outcome.placement.buffers}
    assert placed["hpx_tflm_model"] == region


def test_over_512k_on_qemu_m55_goes_to_flash_and_matches_the_host(
    models: dict[str, Path], tmp_path: Path
) -> None:
    outcome = _profile(models["over_512k"], "qemu-m55", tmp_path)
    _checked(outcome, "QSPI")


def test_over_512k_fits_the_code_memory_of_qemu_m4(models: dict[str, Path],
                                                   tmp_path: Path) -> None:
    outcome = _profile(models["over_512k"], "qemu-m4", tmp_path, backend="reference")
    _checked(outcome, "ITCM")


def test_a_named_place_is_used(models: dict[str, Path], tmp_path: Path) -> None:
    outcome = _profile(models["over_512k"], "qemu-m55", tmp_path, location="sram")
    _checked(outcome, "SRAM")


def test_what_only_the_linker_finds_is_the_plans_sentence(models: dict[str, Path],
                                                          tmp_path: Path) -> None:
    """The least code estimate fits ITCM, the real code does not: no raw linker error."""
    with pytest.raises(ConfigError) as caught:
        _profile(models["near_512k"], "qemu-m55", tmp_path, location="code")
    assert caught.value.message.startswith(
        "region ITCM of qemu-m55 (524,288 bytes) cannot hold the code (")
    assert "the code (at least" not in caught.value.message  # the linker measured it
    assert caught.value.message.endswith(" bytes too many")
    assert caught.value.hint == "set model.location: flash (QSPI, 8,388,608 bytes free)"


def test_a_plan_hpx_chose_is_made_again_with_the_code_the_linker_measured(
    models: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine whose estimate is too small: the first link overflows ITCM, the model moves."""
    monkeypatch.setattr(tflm_engine, "CODE", CodeSize(16 * 1024, 16 * 1024))
    outcome = _profile(models["near_512k"], "qemu-m55", tmp_path)
    _checked(outcome, "QSPI")
