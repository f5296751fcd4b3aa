"""Shared test helpers: the repository root and the real models in it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hpx_core.plugins import load_registry
from hpx_core.sources import PinSet

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def write_yaml(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Write a YAML text to a file in tmp_path and return its path."""

    def write(text: str, name: str = "hpx.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


@pytest.fixture(scope="session")
def catalog() -> PinSet:
    """Every pin hpx knows with the installed engines: the core's and each engine's own."""
    return load_registry().catalog


@pytest.fixture
def loops_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The loops test engine installed for this process's entry points (and so `hpx`); after
    the test, uninstalled again, the process's registry included."""
    from loops_engine import loops_paths

    from hpx_core.plugins import default_registry

    for folder in loops_paths(tmp_path / "site"):
        monkeypatch.syspath_prepend(str(folder))
    default_registry(reload=True)
    yield
    monkeypatch.undo()
    default_registry(reload=True)
