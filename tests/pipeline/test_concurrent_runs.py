"""Runs of one model started together share a cache and an output parent, and all succeed.

Four ``hpx profile`` processes of the same model with sibling output folders used to share one
unlocked work folder and fail ("CMake configure failed", "Directory not empty: 'CompilerIdC'").
The loops test engine keeps this in the default session: real toolchain, real QEMU, its own
engine library through the shared cache, no engine sources.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from emulated_firmware import require_tools
from loops_engine import loops_environment

from hpx_core.compare import load_view

pytestmark = pytest.mark.emulated

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
RUNS = 4


def _bundle(folder: Path) -> Path:
    found = [p for p in folder.iterdir() if (p / "manifest.json").is_file()]
    assert len(found) == 1, found
    return found[0]


def test_four_concurrent_profiles_of_one_model_all_succeed_alike(tmp_path: Path) -> None:
    require_tools()
    env = loops_environment(tmp_path / "site") | {"HPX_CACHE_DIR": str(tmp_path / "cache")}
    hpx = str(Path(sys.executable).with_name("hpx"))
    runs = tmp_path / "runs"
    processes = [
        subprocess.Popen(
            [hpx, "profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
             "--iterations", "3", "--output-dir", str(runs / f"out{i}")],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(RUNS)
    ]
    outputs = [p.communicate(timeout=900) for p in processes]
    for process, (out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, out + err
        assert "Traceback" not in err
    views = [load_view(_bundle(runs / f"out{i}")) for i in range(RUNS)]
    assert all(v.status == "complete" for v in views)
    counts = {(v.whole_median, tuple(layer.median for layer in v.layers)) for v in views}
    assert len(counts) == 1, counts
    builds = [v for v in views if _library_built(v.path)]
    assert len(builds) == 1, "the engine library must be built once, by one of the runs"
    work = [p.name for p in (runs / "hpx-work").iterdir() if not p.name.startswith(".")]
    assert len(work) == 1 and work[0].startswith("kws_ref_model-loops-plain-qemu-m55-")


def _library_built(bundle: Path) -> bool:
    import json

    summary = json.loads((bundle / "summary.json").read_text("utf-8"))
    return any(library["built"] for library in summary["extra"]["libraries"])
