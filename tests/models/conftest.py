"""Make the PTE-writing helper importable as ``ptebuild`` (tests run in importlib mode)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def _load_ptebuild() -> None:
    if "ptebuild" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        "ptebuild", Path(__file__).with_name("ptebuild.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ptebuild"] = module
    spec.loader.exec_module(module)


_load_ptebuild()
