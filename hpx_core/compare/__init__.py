"""Comparing result bundles: typed views of verified bundles, deltas, regression policies."""

from hpx_core.compare.diff import (
    AlignedRow,
    Comparison,
    Dimension,
    Divergence,
    LayerDelta,
    TotalDelta,
    compare,
)
from hpx_core.compare.matching import load_match_manifest
from hpx_core.compare.policy import (
    Check,
    Policy,
    PolicyOutcome,
    Rule,
    apply_policy,
    default_policy,
    load_policy,
)
from hpx_core.contract import MatchManifest, Region
from hpx_core.results.view import BundleView, LayerView, load_view

__all__ = [
    "AlignedRow",
    "BundleView",
    "Check",
    "Comparison",
    "Dimension",
    "Divergence",
    "LayerDelta",
    "LayerView",
    "MatchManifest",
    "Policy",
    "PolicyOutcome",
    "Region",
    "Rule",
    "TotalDelta",
    "apply_policy",
    "compare",
    "default_policy",
    "load_match_manifest",
    "load_policy",
    "load_view",
]
