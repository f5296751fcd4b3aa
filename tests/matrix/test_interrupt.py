"""Ctrl-C and --resume on a real `hpx matrix` process (loops test engine, real QEMU).

SIGINT mid-run: no new cell starts, running cells finish, the folder is written (exit 130) and
holds no half-written bundle. `--resume` then completes the matrix without redoing a finished
cell: their bundles are the same folders, untouched.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from emulated_firmware import require_tools
from loops_engine import loops_environment

from hpx_core.results import verify_bundle

pytestmark = pytest.mark.emulated

REPO = Path(__file__).resolve().parents[2]
MODELS = REPO / "examples/models/mlperf_tiny"
SPEC = f"""hpx_matrix: 1
models: [{MODELS / "kws_ref_model.tflite"}, {MODELS / "ad01_int8.tflite"},
         {MODELS / "vww_96_int8.tflite"}]
engines:
  - type: loops
    backends: [plain, nops]
boards: [qemu-m55]
profile:
  profiling: {{iterations: 3, warmup: 1}}
"""
CELLS = 6  # one worker: the stop lands while most cells are still to come


def _hpx(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    env = loops_environment(tmp_path / "site") | {"HPX_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.Popen([str(Path(sys.executable).with_name("hpx")), "matrix", *args],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _done(folder: Path) -> dict[str, str]:
    """Finished cells: id -> the bundle folder its cell.json names."""
    found = {}
    for file in (folder / "cells").glob("*/cell.json"):
        data = json.loads(file.read_text())
        if data["status"] == "complete":
            found[data["id"]] = data["bundle"]
    return found


def test_sigint_then_resume_completes_without_redoing_cells(tmp_path: Path) -> None:
    require_tools()
    (tmp_path / "m.yaml").write_text(SPEC)
    folder = tmp_path / "out"
    first = _hpx(tmp_path, "m.yaml", "--output-dir", str(folder), "--workers", "1")
    deadline = time.monotonic() + 600
    while not _done(folder) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    first.send_signal(signal.SIGINT)
    out, err = first.communicate(timeout=600)
    assert first.returncode == 130, out + err
    assert "stopping: no new cells" in out and "--resume" in err and "Traceback" not in err
    finished = _done(folder)
    assert 1 <= len(finished) < CELLS, "the stop came too late to test anything"
    recorded = json.loads((folder / "matrix.json").read_text())
    assert recorded["interrupted"] and len(recorded["cells"]) == CELLS
    assert not [p for p in folder.rglob(".tmp*")]  # no half-written bundle
    for bundle in folder.glob("cells/*/*-complete"):
        verify_bundle(bundle)

    again = _hpx(tmp_path, "m.yaml", "--output-dir", str(folder), "--resume")
    out, err = again.communicate(timeout=900)
    assert again.returncode == 0, out + err
    cells = json.loads((folder / "matrix.json").read_text())["cells"]
    assert [c["status"] for c in cells] == ["complete"] * CELLS
    for cell in cells:
        assert cell["resumed"] == (cell["id"] in finished)
        if cell["id"] in finished:
            assert cell["bundle"].endswith(finished[cell["id"]])
    for bundle in folder.glob("cells/*/*-complete"):
        verify_bundle(bundle)
    assert len(list(folder.glob("cells/*/*-complete"))) == CELLS
