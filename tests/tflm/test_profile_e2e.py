"""``tflm`` end to end on the emulated boards: the four MLPerf Tiny models, checked.

Needs the pinned sources (mirrors or network), the Arm toolchain and QEMU. The engine library
is built once per backend/board and reused by every model.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hpx_tflm.e2e import TflmProfile, profile_model
from hpx_tflm.symbols import verify_symbols

from hpx_core.build import symbol_inventory
from hpx_core.models import load_model

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
MODEL_FILES = ["kws_ref_model.tflite", "vww_96_int8.tflite", "pretrainedResnet_quant.tflite",
               "ad01_int8.tflite"]
JITTER = 8
CONFIGS = [("reference", "qemu-m55"), ("cmsis_nn", "qemu-m55"), ("reference", "qemu-m4")]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tflm-e2e")


def _check(profile: TflmProfile, model_path: Path) -> None:
    model = load_model(model_path)
    m = profile.measurement
    assert m.validity == "valid", m.issues
    assert [layer.index for layer in m.layers] == list(range(len(model.operators)))
    assert [layer.op for layer in m.layers] == [op.name for op in model.operators]
    assert all(layer.median > 0 and layer.calls == 1 for layer in m.layers)
    # Emulated counts repeat up to tick rounding and whether a SysTick wrap (its ~5-instruction
    # handler) falls inside the interval: never more than JITTER instructions apart.
    assert all(layer.spread <= JITTER for layer in m.layers), [x.counts for x in m.layers]
    assert max(m.whole) - min(m.whole) <= JITTER, f"whole-inference counts vary: {m.whole}"
    assert profile.layer_sum <= profile.whole
    assert profile.whole - profile.layer_sum <= 0.02 * profile.whole
    outputs = profile.extra["outputs"]
    assert outputs["exact"], outputs
    assert profile.extra["allocated_arena"] and profile.extra["arena_source"] == "probe"
    assert (profile.bundle / "summary.json").is_file()
    findings = verify_symbols(profile.backend, set(symbol_inventory(profile.elf).names()))
    assert all(f.passed for f in findings), findings


@pytest.mark.parametrize(("backend", "board"), CONFIGS)
@pytest.mark.parametrize("name", MODEL_FILES)
def test_mlperf_tiny_profiles(name: str, backend: str, board: str, work: Path) -> None:
    path = MODELS / name
    profile = profile_model(path, backend, board, work / f"{board}-{backend}-{path.stem}")
    _check(profile, path)


def test_kws_has_thirteen_layers_and_a_second_model_compiles_only_its_app(work: Path) -> None:
    first = profile_model(MODELS / "kws_ref_model.tflite", "reference", "qemu-m55", work / "a")
    assert len(first.measurement.layers) == 13
    second = profile_model(MODELS / "ad01_int8.tflite", "reference", "qemu-m55", work / "b")
    assert not second.library_built
    assert second.app_files <= 20  # harness + board + glue, never the engine's 160 files
    again = profile_model(MODELS / "ad01_int8.tflite", "reference", "qemu-m55", work / "b")
    assert again.app_files == 0 and again.whole == second.whole
