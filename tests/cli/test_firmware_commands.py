"""hpx boards / build / run / results verify, through the real CLI entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.cli import main
from hpx_core.contract import FirmwareContribution
from hpx_core.firmware import HarnessSettings, render_project

FAULT_C = Path(__file__).resolve().parents[1] / "fixtures" / "firmware" / "fault_engine.c"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _tools() -> None:
    if any(shutil.which(t) is None for t in ("arm-none-eabi-gcc", "qemu-system-arm", "ninja")):
        pytest.skip("needs the Arm toolchain, QEMU and ninja (CI installs them)")


def _row(table: str, name: str) -> str:
    """A board's row with its wrapped continuation lines (cells wrap in a narrow terminal)."""
    lines = table.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"│ {name} "))
    end = next((i for i in range(start + 1, len(lines))
                if not lines[i].startswith("│  ")), len(lines))
    return " ".join(lines[start:end])


def test_boards_lists_vendor_and_allowed_engines(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "boards")
    assert code == 0
    rows = {name: _row(out, name) for name in ("qemu-m55", "qemu-m4")}
    assert "cortex-m55" in rows["qemu-m55"] and "cortex-m4 " in rows["qemu-m4"]
    for row in rows.values():
        assert " Arm " in row and "tflm" in row and "executorch --backend arm" in row
        assert "helia" not in row  # Ambiq-licensed engines may not run on Arm's QEMU boards


def test_results_verify_passes_then_catches_a_change(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from hpx_core.results import BundleInputs, write_bundle

    bundle = write_bundle(
        tmp_path,
        BundleInputs(board="b", engine="e", status="failed", counter_units="u", capture=b"x"),
    )
    code, out, _ = _run(capsys, "results", "verify", str(bundle))
    assert code == 0 and "match the manifest" in out
    (bundle / "capture.bin").write_bytes(b"y")
    code, _, err = _run(capsys, "results", "verify", str(bundle))
    assert code != 0 and "capture.bin was modified" in err and "Traceback" not in err


@pytest.mark.emulated
def test_build_twice_runs_no_compiler_the_second_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _tools()
    work = tmp_path / "w"
    code, out, _ = _run(capsys, "build", "--board", "qemu-m4", "--work-dir", str(work))
    assert code == 0 and "13 compiler runs" in out and "inputs new" in out
    code, out, _ = _run(capsys, "build", "--board", "qemu-m4", "--work-dir", str(work))
    assert code == 0 and "no work to do" in out and "inputs unchanged" in out
    code, out, _ = _run(capsys, "build", "--work-dir", str(work))
    assert code == 0 and "no work to do" in out
    code, out, _ = _run(
        capsys, "run", "--work-dir", str(work), "--output-dir", str(tmp_path / "r")
    )
    assert code == 0 and "qemu-m4: whole inference" in out and "valid" in out


@pytest.mark.emulated
def test_run_of_faulting_firmware_exits_nonzero_with_pc_and_function(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _tools()
    work = tmp_path / "w"
    glue = FirmwareContribution(
        files={"fault_engine.c": FAULT_C.read_text()}, sources=("fault_engine.c",)
    )
    render_project(work, get_board("qemu-m55"), glue, HarnessSettings("fault_engine"))
    assert _run(capsys, "build", "--work-dir", str(work))[0] == 0
    code, _, err = _run(
        capsys, "run", "--work-dir", str(work), "--output-dir", str(tmp_path / "r")
    )
    assert code != 0 and "Traceback" not in err
    assert "HardFault at PC 0x" in err and "in hpx_fixture_crash+0x" in err
    bundles = list((tmp_path / "r").iterdir())
    assert len(bundles) == 1
    assert json.loads((bundles[0] / "summary.json").read_text())["status"] == "failed"


@pytest.mark.emulated
def test_the_console_script_ends_cleanly_after_reading_a_new_elf(tmp_path: Path) -> None:
    """lief (nanobind) objects must be collected before the interpreter tears them down, or
    every build's end prints a page of "leaked" warnings."""
    _tools()
    hpx = Path(sys.executable).parent / "hpx"
    env = {**os.environ, "HPX_CACHE_DIR": str(tmp_path / "cache")}  # no ELF read before
    done = subprocess.run([str(hpx), "build", "--board", "qemu-m4", "--work-dir",
                           str(tmp_path / "w")], capture_output=True, text=True, env=env,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cache" / "elf-images").is_dir()  # lief read the ELF in this process
    assert "leaked" not in done.stderr and "nanobind" not in done.stderr
