"""Folders with spaces, quotes, accents and shell characters build; the few characters CMake
cannot build in are refused before anything is fetched, naming the character (real toolchain
and QEMU, the loops test engine, its library built in a cache under such a folder too)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from emulated_firmware import require_tools

from hpx_core.cli import main

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
AWKWARD = "my results 'ö' #1 %x `id` (z), w&v"

pytestmark = [pytest.mark.emulated, pytest.mark.usefixtures("loops_installed")]


def _hpx(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_profile_from_a_folder_with_a_space_a_quote_and_unicode(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    require_tools()
    root = tmp_path / AWKWARD
    monkeypatch.setenv("HPX_CACHE_DIR", str(root / "the cache"))
    model = root / "my kernels 'v2'.tflite"
    model.parent.mkdir(parents=True)
    shutil.copyfile(KWS, model)
    code, _, err = _hpx(capsys, "profile", str(model), "--engine", "loops", "--board",
                          "qemu-m55", "--iterations", "2", "--output-dir", str(root / "out"))
    assert code == 0, err
    (bundle,) = (root / "out").iterdir()
    summary = json.loads((bundle / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["validity"] == "valid"
    (work,) = (root / "hpx-work").glob("my_kernels_v2_-loops-*")  # the model's name, plain
    assert (work / "build" / "hpx_app.elf").is_file()
    assert not (tmp_path / "id").exists()


@pytest.mark.parametrize("bad", ["$", ";", '"'])
def test_a_folder_cmake_cannot_build_in_is_refused_naming_the_character(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    out_dir = tmp_path / f"results{bad}x" / "out"
    code, _, err = _hpx(capsys, "profile", str(KWS), "--engine", "loops", "--board",
                        "qemu-m55", "--output-dir", str(out_dir))
    assert code == 2, err
    assert f"holds {bad!r}, which CMake cannot build in" in err and "--output-dir" in err
    assert "Traceback" not in err and not (tmp_path / "cache").exists()
    assert not out_dir.parent.exists()
