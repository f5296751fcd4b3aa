"""The core's layering holds: import-linter's layers contract (pyproject.toml) is kept, and a
module that imports from a layer above its own breaks it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _lint_imports(cwd: Path, env: dict[str, str] | None = None
                  ) -> subprocess.CompletedProcess[str]:
    tool = Path(sys.executable).with_name("lint-imports")
    return subprocess.run([str(tool), "--no-cache"], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=300, env=env)


def test_the_layers_contract_is_kept() -> None:
    done = _lint_imports(REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "hpx_core layers KEPT" in done.stdout


def test_an_import_that_climbs_breaks_it(tmp_path: Path) -> None:
    """A copy of the core where the wire protocol (a bottom layer) imports the pipeline."""
    copy = tmp_path / "hpx_core"
    shutil.copytree(REPO / "hpx_core", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    (copy / "wire" / "climb.py").write_text("from hpx_core.pipeline import profile\n")
    done = _lint_imports(tmp_path, {"PYTHONPATH": str(tmp_path), "PATH": ""})
    assert done.returncode == 1, done.stdout[-2000:]
    assert "hpx_core layers BROKEN" in done.stdout
    assert "hpx_core.wire.climb -> hpx_core.pipeline" in done.stdout
