"""A third-party engine installed with pip into a throwaway venv is a first-class engine.

The venv gets hpx-core, the four engine plugins, a third-party engine package and a plugin that
fails at import, all from their own pyproject.toml, the way a user installs them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "plugins"
PLUGINS = ["hpx_tflm", "hpx_heliart", "hpx_heliaaot", "hpx_executorch"]


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    packages = [REPO, *(REPO / "plugins" / p for p in PLUGINS)]
    packages += [FIXTURES / "hpx_echo_engine", FIXTURES / "hpx_broken_engine"]
    subprocess.run(
        [str(root / "bin" / "python"), "-m", "pip", "install", "-q", *map(str, packages)],
        check=True,
    )
    return root


def _hpx(venv: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "hpx"), *args], capture_output=True, text=True, cwd=cwd, check=False
    )


def test_third_party_engine_is_listed_and_broken_plugin_skipped(venv: Path) -> None:
    result = _hpx(venv, "plugins")
    assert result.returncode == 0, result.stderr
    for engine in ("echo", "tflm", "helia-rt", "helia-aot", "executorch"):
        assert engine in result.stdout
    assert "hpx-echo-engine" in result.stdout
    assert "skipped plugin broken" in result.stdout
    assert "needs a library that is not installed" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_third_party_engine_is_accepted_as_engine_type(venv: Path, tmp_path: Path) -> None:
    config = tmp_path / "echo.yaml"
    config.write_text("engine:\n  type: echo\n  config:\n    greeting: hi\n")
    assert _hpx(venv, "config", "validate", str(config)).returncode == 0
    config.write_text("engine:\n  type: echo\n  config:\n    greting: hi\n")
    typo = _hpx(venv, "config", "validate", str(config))
    assert typo.returncode == 2 and "did you mean 'greeting'" in typo.stderr


def test_uninstalled_engine_disappears(venv: Path) -> None:
    pip = [str(venv / "bin" / "python"), "-m", "pip"]
    subprocess.run([*pip, "uninstall", "-q", "-y", "hpx-tflm"], check=True)
    try:
        listing = _hpx(venv, "plugins")
        assert "tflm" not in listing.stdout.replace("hpx-tflm", "")
        refused = _hpx(venv, "profile", "--engine", "tflm")
        assert refused.returncode == 2
        assert "unknown engine 'tflm'" in refused.stderr
        assert "installed engines: echo, executorch, helia-aot, helia-rt" in refused.stderr
    finally:
        subprocess.run([*pip, "install", "-q", str(REPO / "plugins" / "hpx_tflm")], check=True)
