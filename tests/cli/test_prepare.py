"""`hpx prepare` without engine sources: what it refuses, and that --offline writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.cli import main

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


def test_nothing_named_is_refused_with_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, said = run(capsys, "prepare")
    assert code != 0
    assert "needs models, a matrix file (--matrix) or an engine" in said
    assert "hint: e.g. hpx prepare MODEL --board BOARD" in said


def test_offline_on_an_empty_cache_names_what_is_missing_and_writes_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    monkeypatch.chdir(tmp_path)
    code, said = run(capsys, "prepare", str(KWS), "--engine", "tflm", "--board", "qemu-m55",
                     "--backend", "reference", "--backend", "cmsis_nn", "--offline")
    assert code != 0
    assert said.count("✗ kws_ref_model.tflite tflm") == 2
    assert "in the cache is missing" in said  # the first pinned source the cache lacks
    assert "2 of 2 runs are not prepared" in said
    assert not (cache / "engines").exists()
    assert {p.name for p in tmp_path.iterdir()} <= {"cache"}  # no work or results folder


def test_engines_without_models_get_their_sources_only(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    code, said = run(capsys, "prepare", "--engine", "tflm", "--offline")
    assert code != 0 and "in the cache is missing" in said  # no sources to check
