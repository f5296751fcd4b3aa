"""Paths of the committed ExecuTorch programs."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
TIER1 = REPO / "tests" / "fixtures" / "executorch_tier1"
STOCK_151 = REPO / "tests" / "fixtures" / "pte"
