"""Model Explorer node data: GraphNodeData with results keyed by operator index."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from hpx_core.compare import compare, load_view
from hpx_core.overlay import bundle_node_data, delta_node_data

for _name in ("emulated_firmware", "selftest_bundles"):
    if _name not in sys.modules:
        _spec = importlib.util.spec_from_file_location(_name, Path(__file__).parent / f"{_name}.py")
        assert _spec is not None and _spec.loader is not None
        sys.modules[_name] = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(sys.modules[_name])

from selftest_bundles import EXTRA_INSTRUCTIONS, bundle  # noqa: E402

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
