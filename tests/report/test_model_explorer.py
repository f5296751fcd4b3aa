"""Model Explorer node data: GraphNodeData with results keyed by operator index."""

from __future__ import annotations

import pytest
from selftest_bundles import EXTRA_INSTRUCTIONS, bundle

from hpx_core.compare import compare, load_view
from hpx_core.compare.page import delta_node_data
from hpx_core.report.model_explorer import bundle_node_data

pytestmark = pytest.mark.emulated


def test_bundle_node_data_holds_every_layer_median() -> None:
    view = load_view(bundle())
    data = bundle_node_data(view)
    assert set(data) == {"results", "gradient"}
    assert data["results"] == {str(x.index): {"value": x.median} for x in view.layers}
    stops = [g["stop"] for g in data["gradient"]]
    assert stops[0] == 0 and stops[-1] == 1 and stops == sorted(stops)


def test_delta_node_data_colours_the_slower_layer() -> None:
    c = compare(load_view(bundle()), load_view(bundle(variant="slower")))
    data = delta_node_data(c)
    assert data["results"]["4"] == {"value": EXTRA_INSTRUCTIONS}
    assert {k: v["value"] for k, v in data["results"].items() if v["value"]} == {
        "4": EXTRA_INSTRUCTIONS
    }
    bounds = [t["value"] for t in data["thresholds"]]
    assert bounds == sorted(bounds) and bounds[-1] == EXTRA_INSTRUCTIONS
