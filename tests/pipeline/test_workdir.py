"""Work folders are named by what shapes the firmware, not by where the results go."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

import pytest
from filelock import FileLock, Timeout
from loops_engine import loops_registry

from hpx_core.config.validate import ValidatedConfig, overrides, validate_config
from hpx_core.pipeline.workdir import claim_work_folder, work_key
from hpx_core.reading import load_model

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
AD01 = REPO / "examples/models/mlperf_tiny/ad01_int8.tflite"


def _validated(model: Path = KWS, **values: object) -> ValidatedConfig:
    settings = {"engine__type": "loops", "target__board": "qemu-m55", "model__path": str(model),
                **values}
    return validate_config(None, overrides("test", **settings), loops_registry())


def _key(model: Path = KWS, **values: object) -> str:
    return work_key(_validated(model, **values), load_model(model))


def test_the_key_follows_the_inputs_not_the_outputs() -> None:
    key = _key()
    assert _key(output__dir="elsewhere", build__jobs=1) == key
    assert _key(profiling__iterations=7) != key
    assert _key(engine__backend="nops") != key
    assert _key(engine__config={"scale": 5}) != key
    assert _key(AD01) != key
    assert _key(target__toolchain="clang") != key


def _claim(resources: ExitStack, **values: object) -> Path:
    return claim_work_folder(_validated(**values), load_model(KWS), resources)


def test_the_folder_sits_in_the_work_root_and_is_locked_for_the_run(tmp_path: Path) -> None:
    with ExitStack() as first:
        folder = _claim(first, output__dir=str(tmp_path / "results"))
        assert folder.parent == tmp_path / "hpx-work"
        key = _key(output__dir=str(tmp_path / "results"))
        assert folder.name == f"kws_ref_model-loops-plain-qemu-m55-{key[:12]}"
        lock = folder.with_name(f".{folder.name}.lock")
        with pytest.raises(Timeout):
            FileLock(str(lock)).acquire(timeout=0)
    with ExitStack() as other:  # same inputs, same folder, once released
        assert _claim(other, output__dir=str(tmp_path / "other")) == folder
    with ExitStack() as custom:
        claimed = _claim(custom, output__dir=str(tmp_path / "r"),
                         build__work_dir=str(tmp_path / "w"))
        assert claimed.parent == tmp_path / "w"
    with ExitStack() as llvm:
        key = _key(output__dir=str(tmp_path / "r"), target__toolchain="clang")
        assert _claim(llvm, output__dir=str(tmp_path / "r"), target__toolchain="clang").name == (
            f"kws_ref_model-loops-plain-qemu-m55-clang-{key[:12]}")
