"""A comparison as JSON and CSV files, for scripts and spreadsheets (every layer, no top-N).

Memory goes with the counts: comparison.json's ``memory`` holds the memory pass's figures as
totals, and each layer row carries both runs' stack depth at that layer (bytes below the
stack's top; empty for a run without the memory pass)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from hpx_core.atomic import write_atomic
from hpx_core.compare.diff import AlignedRow, Comparison, LayerDelta, TotalDelta
from hpx_core.compare.policy import PolicyOutcome
from hpx_core.results.view import BundleView, LayerView

COMPARISON_SCHEMA = 1
LAYER_COLUMNS = (
    "rank",
    "index",
    "name",
    "op",
    "base_op",
    "base",
    "candidate",
    "delta",
    "pct",
    "base_share_pct",
    "base_spread",
    "candidate_spread",
    "units",
    "base_stack_bytes",
    "candidate_stack_bytes",
)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _total(t: TotalDelta) -> dict[str, Any]:
    return {
        "name": t.name,
        "unit": t.unit,
        "base": t.base,
        "candidate": t.candidate,
        "delta": t.delta,
        "pct": _round(t.pct),
        "base_spread": t.base_spread,
        "candidate_spread": t.candidate_spread,
    }


def _stack(view: BundleView, index: int) -> int | None:
    """The stack's depth at layer ``index`` of ``view``'s memory pass, if it ran one."""
    layers = view.memory.layers if view.memory else ()
    return next((x.stack for x in layers if x.index == index), None)


def _layer(rank: int, d: LayerDelta, c: Comparison) -> dict[str, Any]:
    return {
        "rank": rank,
        "index": d.candidate.index,
        "name": d.candidate.name,
        "op": d.candidate.op,
        "base_op": d.base.op,
        "base": d.base.median,
        "candidate": d.candidate.median,
        "delta": d.delta,
        "pct": _round(d.pct),
        "base_share_pct": _round(d.base_share),
        "base_spread": d.base.spread,
        "candidate_spread": d.candidate.spread,
        "units": c.base.units,
        "base_stack_bytes": _stack(c.base, d.base.index),
        "candidate_stack_bytes": _stack(c.candidate, d.candidate.index),
    }


def _side(layer: LayerView | None) -> dict[str, Any] | None:
    if layer is None:
        return None
    return {"index": layer.index, "name": layer.name, "op": layer.op, "median": layer.median}


def _aligned_row(row: AlignedRow) -> dict[str, Any]:
    return {"base": _side(row.base), "candidate": _side(row.candidate), "region": row.region,
            "delta": row.delta}


def comparison_json(c: Comparison, outcome: PolicyOutcome | None = None) -> dict[str, Any]:
    """Everything the comparison found, JSON-ready."""
    data: dict[str, Any] = {
        "schema": COMPARISON_SCHEMA,
        "base": {"path": str(c.base.path), "label": c.base.label},
        "candidate": {"path": str(c.candidate.path), "label": c.candidate.label},
        "dimensions": [
            {"name": d.name, "base": d.base, "candidate": d.candidate, "differs": d.differs}
            for d in c.dimensions
        ],
        "totals": [_total(t) for t in c.totals],
        "layers": [_layer(i + 1, d, c) for i, d in enumerate(c.layers)],
        "memory": [_total(t) for t in c.memory],
        "divergence": None
        if c.divergence is None
        else {
            "index": c.divergence.index,
            "message": c.divergence.message,
            "base_op": c.divergence.base_layer.op if c.divergence.base_layer else None,
            "candidate_op": c.divergence.candidate_layer.op
            if c.divergence.candidate_layer
            else None,
        },
        "notes": list(c.notes),
    }
    if c.aligned:
        data["aligned"] = [_aligned_row(r) for r in c.aligned]
    if outcome is not None:
        data["policy"] = {
            "source": outcome.policy.source,
            "passed": outcome.passed,
            "checks": [
                {
                    "metric": k.metric,
                    "subject": k.subject,
                    "status": k.status,
                    "message": k.message,
                    "delta": k.delta,
                    "allowed": k.allowed,
                }
                for k in outcome.checks
            ],
        }
    return data


def layers_csv(c: Comparison) -> str:
    """Per-layer deltas, one row per matched layer, by impact."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=LAYER_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for i, d in enumerate(c.layers):
        writer.writerow(_layer(i + 1, d, c))
    return out.getvalue()


def write_exports(out_dir: Path, c: Comparison, outcome: PolicyOutcome | None) -> list[Path]:
    """comparison.json and layers.csv under ``out_dir``."""
    text = json.dumps(comparison_json(c, outcome), indent=2, sort_keys=True) + "\n"
    return [
        write_atomic(out_dir / "comparison.json", text),
        write_atomic(out_dir / "layers.csv", layers_csv(c)),
    ]
