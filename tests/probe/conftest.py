"""Make the fake pyocd and the shared emulated-firmware helper importable (importlib mode)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _name, _path in (
    ("emulated_firmware", _HERE.parent / "emulated_firmware.py"),
    ("fake_pyocd", _HERE / "fake_pyocd.py"),
):
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(_name, _path)
        assert _spec is not None and _spec.loader is not None
        _module = importlib.util.module_from_spec(_spec)
        sys.modules[_name] = _module
        _spec.loader.exec_module(_module)
