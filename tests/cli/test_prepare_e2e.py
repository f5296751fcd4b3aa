"""`hpx prepare` with the pinned sources: it builds, finds everything the second time, and its
--offline check passes only where a run would compile no library."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from profiles import profile_run

from hpx_core.cli import main

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None,
                                 reason="needs the Arm toolchain")]
MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
KWS, AD = MODELS / "kws_ref_model.tflite", MODELS / "ad01_int8.tflite"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


def test_prepare_is_idempotent_and_a_prepared_run_builds_no_library(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    wanted = ("prepare", str(KWS), str(AD), "--engine", "tflm", "--board", "qemu-m55")
    code, said = run(capsys, *wanted)
    assert code == 0, said
    assert said.count("✓") == 2
    code, again = run(capsys, *wanted)
    assert code == 0 and again.count(": ready") == 2 and "built" not in again
    code, checked = run(capsys, *wanted, "--offline")
    assert code == 0 and checked.count(": ready") == 2
    assert list(tmp_path.iterdir()) == []  # the work folders were temporary
    outcome = profile_run(AD, "tflm", "qemu-m55", tmp_path / "profile", until="build")
    assert outcome.contribution is not None
    assert not any(use.built for use in outcome.contribution.libraries)


def test_offline_refuses_what_would_be_built_and_builds_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    assert main(["sources", "fetch", "--engine", "tflm", "--backend", "reference"]) == 0
    code, said = run(capsys, "prepare", str(KWS), "--engine", "tflm", "--backend", "reference",
                     "--board", "qemu-m4", "--offline")
    assert code != 0
    assert "not in the cache: the units of tflm_reference-" in said
    assert "1 of 1 runs are not prepared" in said
    assert not (cache / "engines").exists() or not any((cache / "engines").iterdir())
