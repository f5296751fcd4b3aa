"""Make the shared emulated helpers importable (tests run in importlib mode)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

for _name in ("emulated_firmware", "selftest_bundles"):
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(
            _name, Path(__file__).resolve().parents[1] / f"{_name}.py"
        )
        assert _spec is not None and _spec.loader is not None
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)
