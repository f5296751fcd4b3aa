"""`hpx matrix` through the real CLI entry point: the plan, located errors, a held folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.cli import main

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "examples/models/mlperf_tiny"


def _hpx(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    path = tmp_path / "m.yaml"
    path.write_text(f"""hpx_matrix: 1
models: [{MODELS / "kws_ref_model.tflite"}]
engines:
  - type: loops
    backends: [plain, nops]
  - type: helia-rt
boards: [qemu-m55, {{name: apollo510_evb, build_only: true}}]
""")
    return path


@pytest.mark.usefixtures("loops_installed")
def test_dry_run_prints_cells_pruned_libraries_and_work(
        capsys: pytest.CaptureFixture[str], spec: Path, tmp_path: Path) -> None:
    code, out, err = _hpx(capsys, "matrix", str(spec), "--dry-run", "--output-dir",
                          str(tmp_path / "out"))
    assert code == 0, err
    assert "5 cells" in out and "kws_ref_model--helia-rt-helia--apollo510_evb" in out
    assert "pruned kws_ref_model--helia-rt-helia--qemu-m55" in out and "Ambiq" in out
    # the loops backends on qemu-m55 and apollo510_evb (same CPU flags) and helia-rt
    assert "engine libraries: 3" in out and "loops/plain on apollo510_evb, qemu-m55" in out
    assert "5 builds, 2 emulated runs, 3 build only" in out
    assert not (tmp_path / "out").exists()


@pytest.mark.usefixtures("loops_installed")
def test_a_folder_holding_a_matrix_is_not_overwritten(
        capsys: pytest.CaptureFixture[str], spec: Path, tmp_path: Path) -> None:
    held = tmp_path / "out"
    held.mkdir()
    (held / "matrix.json").write_text("{}")
    code, _, err = _hpx(capsys, "matrix", str(spec), "--output-dir", str(held))
    assert code == 2 and "already holds a matrix" in err and "--resume" in err
    assert (held / "matrix.json").read_text() == "{}"


@pytest.mark.usefixtures("loops_installed")
def test_a_spec_error_is_two_located_lines(capsys: pytest.CaptureFixture[str],
                                           spec: Path) -> None:
    spec.write_text(spec.read_text().replace("qemu-m55", "qemu-m5"))
    code, _, err = _hpx(capsys, "matrix", str(spec), "--dry-run")
    assert code == 2 and f"{spec}:7:10: boards.0.name: unknown board 'qemu-m5'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 2
