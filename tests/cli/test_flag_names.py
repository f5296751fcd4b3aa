"""One spelling per idea across commands: profile takes build's --work-dir and --jobs, config
show takes -c as validate does, and the spellings that shipped before still work, unlisted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from emulated_firmware import require_tools

from hpx_core.cli import main

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def _hpx(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.emulated
@pytest.mark.usefixtures("loops_installed")
def test_profile_keeps_its_work_where_work_dir_says_with_the_jobs_asked(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    require_tools()
    code, _, err = _hpx(capsys, "profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                        "--iterations", "2", "--output-dir", str(tmp_path / "out"),
                        "--work-dir", str(tmp_path / "elsewhere"), "--jobs", "1")
    assert code == 0, err
    (work,) = (tmp_path / "elsewhere").glob("kws_ref_model-loops-*")
    assert (work / "build" / "hpx_app.elf").is_file()
    assert not (tmp_path / "hpx-work").exists()
    (bundle,) = (tmp_path / "out").iterdir()
    config = json.loads((bundle / "config.json").read_text())
    assert config["build.jobs"] == {"value": 1, "from": "--jobs"}


@pytest.mark.parametrize("command", ["profile", "build"])
def test_profile_and_build_take_the_same_build_flags(
        capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, _ = _hpx(capsys, command, "--help")
    assert code == 0 and "--work-dir" in out and "--jobs" in out


def test_config_show_takes_the_config_as_c(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    path = tmp_path / "hpx.yaml"
    path.write_text("engine:\n  type: tflm\n  backend: cmsis_nn\n", encoding="utf-8")
    code, out, err = _hpx(capsys, "config", "show", "-c", str(path), "--json")
    assert code == 0, err
    rows = {r["path"]: r for r in json.loads(out)}
    assert rows["engine.backend"] == {"path": "engine.backend", "value": "cmsis_nn",
                                      "origin": f"{path}:3:3"}
    other = tmp_path / "other.yaml"
    other.write_text("engine: {type: tflm}\n", encoding="utf-8")
    code, _, err = _hpx(capsys, "config", "show", str(other), "-c", str(path))
    assert code == 2 and "two configs given" in err


def test_calibrate_writes_into_output_dir_and_hides_its_earlier_flag(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _hpx(capsys, "calibrate", "--help")
    assert code == 0 and "--output-dir" in out and "--output " not in out
