"""JSON and CSV exports hold every matched layer, with the numbers of the comparison."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from selftest_bundles import EXTRA_INSTRUCTIONS, bundle, first_divergent_layer

from hpx_core.compare import compare, load_view
from hpx_core.compare.export import write_exports

pytestmark = pytest.mark.emulated


def test_json_and_csv_agree_with_the_bundles(tmp_path: Path) -> None:
    base, cand = load_view(bundle()), load_view(bundle(variant="slower"))
    c = compare(base, cand)
    json_path, csv_path = write_exports(tmp_path, c, None)
    data = json.loads(json_path.read_text())
    rows = list(csv.DictReader(csv_path.open()))
    assert len(rows) == len(data["layers"]) == len(base.layers)
    medians = {x.index: (x.median, y.median) for x, y in zip(base.layers, cand.layers, strict=True)}
    for row in rows:
        b, k = medians[int(row["index"])]
        assert (int(row["base"]), int(row["candidate"]), int(row["delta"])) == (b, k, k - b)
    assert rows[0]["name"] == "float" and int(rows[0]["delta"]) == EXTRA_INSTRUCTIONS
    whole = next(t for t in data["totals"] if t["name"] == "whole inference")
    assert whole["delta"] == EXTRA_INSTRUCTIONS
    assert whole["pct"] == pytest.approx(100 * EXTRA_INSTRUCTIONS / base.whole_median, abs=1e-4)  # type: ignore[operator]
    assert data["divergence"] is None and "policy" not in data
    assert [d["name"] for d in data["dimensions"] if d["differs"]] == []


def test_divergence_is_exported(tmp_path: Path) -> None:
    c = compare(load_view(bundle("qemu-m55")), load_view(bundle("qemu-m4")))
    json_path, csv_path = write_exports(tmp_path, c, None)
    data = json.loads(json_path.read_text())
    assert data["divergence"]["index"] == first_divergent_layer()
    assert (data["divergence"]["base_op"], data["divergence"]["candidate_op"]) == (
        "mve",
        "subs_bne",
    )
    assert data["layers"] == [] and len(csv_path.read_text().splitlines()) == 1
    assert [d["name"] for d in data["dimensions"] if d["differs"]] == ["board"]
