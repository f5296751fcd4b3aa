"""What ``hpx compare`` shows of two bundles' instruction profiles and cycle estimates: the
instruction classes that changed per layer, and both estimates under their own name. Shown,
never gated: an estimate is not a measurement."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from hpx_insight.views import class_deltas


def class_table(base: Mapping[str, Any], candidate: Mapping[str, Any], top: int) -> Table:
    """Per layer, the instruction classes that changed, largest change first (``top`` rows;
    0: all)."""
    rows = [(layer, name, change) for layer in class_deltas(base, candidate)
            for name, change in layer["classes"].items() if change["delta"]]
    rows.sort(key=lambda row: -abs(row[2]["delta"]))
    table = Table("#", "layer", "class", "base", "candidate", "delta",
                  title="instruction classes per inference (instruction profiles)")
    for layer, name, change in rows[:top] if top > 0 else rows:
        table.add_row(str(layer["index"]), layer["name"], name, f"{change['base']:,.0f}",
                      f"{change['candidate']:,.0f}", f"{change['delta']:+,.0f}")
    return table


def estimate_table(base: Mapping[str, Any], candidate: Mapping[str, Any]) -> Table:
    """Both bundles' whole-inference estimates, side by side."""
    table = Table("estimate", "base", "candidate", title="estimated cycles (not measured)")
    table.add_row(f"whole inference on {base['board']} / {candidate['board']}",
                  f"{base['whole']['estimated_cycles']:,.0f}",
                  f"{candidate['whole']['estimated_cycles']:,.0f}")
    return table
