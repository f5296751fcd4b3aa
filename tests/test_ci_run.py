"""``.ci/run`` checks what the README promises: the tests, lint and typecheck sessions."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CI = ROOT / ".ci" / "run"
PROMISED = ["tests", "lint", "typecheck"]  # README: `nox -s tests lint typecheck`


def _nox_command() -> list[str]:
    """The script's nox invocation, run with this interpreter's nox (setup makes .venv's)."""
    calls = [line for line in CI.read_text().splitlines() if line.startswith(".venv/bin/nox")]
    assert len(calls) == 1, calls
    words = [w for w in shlex.split(calls[0])[1:] if w != "$@"]
    return [sys.executable, "-m", "nox", *words]


def test_ci_selects_the_sessions_the_readme_promises() -> None:
    assert f"nox -s {' '.join(PROMISED)}" in (ROOT / "README.md").read_text()
    listed = subprocess.run(
        [*_nox_command(), "--list", "--json"], cwd=ROOT, check=True, capture_output=True,
        text=True,
    )
    assert [s["session"] for s in json.loads(listed.stdout)] == PROMISED


def test_ci_sets_up_a_fresh_machine_first() -> None:
    """With the test extras: the default session's browser test needs Chromium."""
    lines = CI.read_text().splitlines()
    assert subprocess.run(["bash", "-n", str(CI)], check=False).returncode == 0
    assert lines.index("./scripts/setup --test") < next(
        i for i, line in enumerate(lines) if line.startswith(".venv/bin/nox")
    )
    assert CI.stat().st_mode & 0o111  # executable
