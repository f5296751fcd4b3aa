"""Make the shared emulated-firmware helper importable (tests run in importlib mode)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if "emulated_firmware" not in sys.modules:
    _spec = importlib.util.spec_from_file_location(
        "emulated_firmware", Path(__file__).resolve().parents[1] / "emulated_firmware.py"
    )
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["emulated_firmware"] = _module
    _spec.loader.exec_module(_module)
