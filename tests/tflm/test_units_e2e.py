"""``tflm`` with the model's units against the whole library, and units shared by concurrent runs.

Needs the pinned sources, the Arm toolchain and QEMU. The whole libraries come from the cache
the other end-to-end tests use; the concurrent runs start from an empty cache of their own.
"""

from __future__ import annotations

import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from images import loaded_image
from profiles import check_exact_profile, profile_run

from hpx_core.contract import LibraryUse
from hpx_core.pipeline import ProfileOutcome

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
KWS = MODELS / "kws_ref_model.tflite"
RESNET = MODELS / "pretrainedResnet_quant.tflite"
UNITS = re.compile(r"(\d+) of (\d+) units")


def _library(outcome: ProfileOutcome) -> LibraryUse:
    assert outcome.contribution is not None
    (use,) = outcome.contribution.libraries
    return use


@pytest.mark.parametrize("backend", ["reference", "cmsis_nn"])
def test_kws_counts_with_its_units_exactly_as_with_the_whole_library(
        backend: str, tmp_path: Path) -> None:
    whole = profile_run(KWS, "tflm", "qemu-m55", tmp_path / "whole", backend=backend,
                        kernels="all")
    units = profile_run(KWS, "tflm", "qemu-m55", tmp_path / "units", backend=backend)
    for outcome in (whole, units):
        check_exact_profile(outcome, KWS, coverage=0.98)
    assert whole.measurement is not None and units.measurement is not None
    assert units.measurement.whole == whole.measurement.whole
    assert [x.counts for x in units.measurement.layers] == [
        x.counts for x in whole.measurement.layers]
    assert whole.build is not None and units.build is not None
    assert loaded_image(units.build.elf) == loaded_image(whole.build.elf)  # the same firmware
    linked = UNITS.fullmatch(_library(units).linked or "")
    assert linked is not None and int(linked[1]) < int(linked[2])
    assert _library(whole).linked is None


def test_concurrent_profiles_share_one_core_and_compile_nothing_twice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    models = {"kws": KWS, "resnet": RESNET}
    with ThreadPoolExecutor(len(models)) as pool:
        running = {name: pool.submit(profile_run, path, "tflm", "qemu-m55", tmp_path / name)
                   for name, path in models.items()}
        done = {name: future.result() for name, future in running.items()}
    for name, outcome in done.items():
        check_exact_profile(outcome, models[name], coverage=0.98)
    uses = {name: _library(outcome) for name, outcome in done.items()}
    manifest = next((tmp_path / "cache" / "engines").glob("tflm_reference-*/manifest.json"))
    kept = json.loads(manifest.read_text(encoding="utf-8"))
    chosen = {label: set(sources) for label, sources in kept["selections"].items()}
    assert len(chosen) == 2
    for label, sources in chosen.items():  # each run's operators are there
        kernel = "add.cc" if "ADD," in label else "depthwise_conv.cc"
        assert any(s.endswith(f"/kernels/{kernel}") for s in sources), label
    union = set.union(*chosen.values())
    assert sum(use.compiled for use in uses.values()) == len(union)  # each unit compiled once
