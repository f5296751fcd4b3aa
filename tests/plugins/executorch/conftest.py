"""Paths of the committed ExecuTorch programs."""

from __future__ import annotations

from pathlib import Path

from hpx_executorch.identity import PINS

from hpx_core.sources import core_pins, merge_pins

REPO = Path(__file__).resolve().parents[3]
TIER1 = REPO / "tests" / "fixtures" / "executorch_tier1"
STOCK_151 = REPO / "tests" / "fixtures" / "pte"

CATALOG = merge_pins(core_pins(), PINS)
"""The core's pins with this engine's own, as the registry merges them."""
