"""Fixtures for the source tests; the repositories are built by :mod:`gitrepos`."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load_gitrepos() -> ModuleType:
    """Import the helper as ``gitrepos`` (tests run in importlib mode)."""
    if "gitrepos" not in sys.modules:
        path = Path(__file__).with_name("gitrepos.py")
        spec = importlib.util.spec_from_file_location("gitrepos", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["gitrepos"] = module
        spec.loader.exec_module(module)
    return sys.modules["gitrepos"]


_gitrepos = load_gitrepos()
git_env = _gitrepos.git_env
upstream = _gitrepos.upstream
