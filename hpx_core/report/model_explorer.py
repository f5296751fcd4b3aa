"""Per-layer counts as Model Explorer node data, to colour hot layers on the model graph.

Google's Model Explorer loads "node data" JSON beside a model: a ``GraphNodeData`` object whose
``results`` map node keys to ``{"value": number}``, plus a ``gradient`` (stops 0..1 from the
smallest to the largest value) or ``thresholds`` (upper bounds with colours). Its TFLite adapter
names each operator node by its index in the subgraph ("0", "1", ...), which is the layer index
hpx records for TFLite engines, so the keys line up with the graph without further mapping.
"""

from __future__ import annotations

from typing import Any

from hpx_core.results.view import BundleView

HOT_GRADIENT = [
    {"stop": 0, "bgColor": "#ffffff"},
    {"stop": 0.5, "bgColor": "#ffcc80"},
    {"stop": 1, "bgColor": "#e53935"},
]


def bundle_node_data(view: BundleView) -> dict[str, Any]:
    """Each layer's median count; hotter colour for more of them."""
    return {
        "results": {str(layer.index): {"value": layer.median} for layer in view.layers},
        "gradient": HOT_GRADIENT,
    }
