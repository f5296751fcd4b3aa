"""A warm cache that hpx cannot write (a CI image's shared cache mounted read-only) is read.

Real ``hpx build`` processes with the loops engine and the real toolchain: the first fills a
cache, later ones run with that cache mounted read-only. What the cache holds is used without a
lock or a write; a library it lacks is refused in one error naming the lock it would need.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from emulated_firmware import require_tools
from loops_engine import loops_environment
from read_only import needs_unshare, run_read_only

pytestmark = [pytest.mark.emulated, needs_unshare]
HPX = Path(sys.executable).parent / "hpx"
KWS = Path(__file__).resolve().parents[3] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def _build(tmp_path: Path, out: str, *extra: str) -> list[str]:
    return [str(HPX), "build", str(KWS), "--engine", "loops", "--board", "qemu-m55",
            "--output-dir", str(tmp_path / out), *extra]


def _listing(folder: Path) -> dict[str, int]:
    return {p.relative_to(folder).as_posix(): p.stat().st_mtime_ns for p in folder.rglob("*")}


def test_a_read_only_warm_cache_builds_and_a_cold_library_is_one_error(
        tmp_path: Path) -> None:
    require_tools()
    cache = tmp_path / "cache"
    env = loops_environment(tmp_path / "site") | {"HPX_CACHE_DIR": str(cache)}
    warm = subprocess.run(_build(tmp_path, "first"), env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    assert warm.returncode == 0, warm.stderr
    before = _listing(cache)

    again = run_read_only(cache, _build(tmp_path, "again"), env=env, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(list((tmp_path / "again").glob("*-built"))) == 1

    cold = run_read_only(cache, _build(tmp_path, "cold", "--backend", "nops"), env=env,
                         cwd=tmp_path)
    assert cold.returncode == 1
    said = [line for line in cold.stderr.splitlines() if line.startswith(("error:", "hint:"))]
    assert len(said) == 2 and "Traceback" not in cold.stderr
    assert "(Read-only file system): engine library loops_nops-" in said[0]
    assert said[0].endswith("must be written there")
    assert _listing(cache) == before  # nothing was written, not even a lock file
