"""``make_kernels_repo.py`` reproduces the commit kernelbench pins, on any machine.

The pin is only meaningful if anyone can make the repository it names: the commit must not
depend on the time, the user, the machine's git configuration or line endings.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "kernelbench"
PINS = EXAMPLE / "hpx_kernelbench" / "pins.toml"


def _maker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_kernels_repo",
                                                  EXAMPLE / "make_kernels_repo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pin() -> dict[str, str]:
    pin: dict[str, str] = tomllib.loads(PINS.read_text())["repositories"]["kernelbench-kernels"]
    return pin


def test_the_script_makes_the_pinned_commit(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE / "make_kernels_repo.py"),
                           str(tmp_path / "repo")], capture_output=True, text=True, check=True)
    pin = _pin()
    assert f"commit {pin['commit']}" in done.stdout
    rule = f"url.{(tmp_path / 'repo').as_uri()}.insteadOf {pin['url']}"
    assert rule in done.stdout


def test_line_endings_and_modes_do_not_change_the_commit(tmp_path: Path) -> None:
    maker = _maker()
    copy = tmp_path / "kernels"
    for rel, data in maker.kernel_files().items():
        path = copy / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.replace(b"\n", b"\r\n"))
        path.chmod(0o755)
    assert maker.make_repo(tmp_path / "repo", copy) == _pin()["commit"]
