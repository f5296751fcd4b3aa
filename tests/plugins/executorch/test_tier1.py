"""Pairing the arm and ns programs of one model through the export manifest."""

from __future__ import annotations

import pytest
from hpx_executorch.tier1 import load_manifest, match_for_bundles, match_manifest, pair_programs

from hpx_core.contract import ManifestRequest
from hpx_core.errors import ConfigError
from hpx_core.hooks import EngineHooks
from hpx_core.plugins import default_registry

from .conftest import TIER1

MANIFEST = load_manifest(TIER1 / "tier1_manifest.json")


def test_tier1_pairs_the_shared_kernels_and_leaves_the_tier1_region() -> None:
    pairing = pair_programs(MANIFEST, "tier1", "arm", "ns")
    # quantize, both convolutions, the output dequantize
    assert pairing.pairs == ((0, 0), (2, 1), (5, 3), (11, 7))
    # arm: dequantize, minimum+mul (hardswish), dequantize, leaky_relu, sub, quantize, clamp
    assert pairing.base_region == (1, 3, 4, 6, 7, 8, 9, 10)
    # ns: hardswish, leaky_relu, sub, relu
    assert pairing.candidate_region == (2, 4, 5, 6)


def test_tier1mean_region_is_the_mean() -> None:
    pairing = pair_programs(MANIFEST, "tier1mean", "arm", "ns")
    assert pairing.pairs == ((0, 0), (4, 2))
    assert pairing.candidate_region == (1,)


def test_match_manifest_names_both_programs() -> None:
    doc = match_manifest(MANIFEST, "tier1", "arm", "ns")
    programs = MANIFEST["models"]["tier1"]["programs"]
    assert doc["hpx_match"] == 1
    assert (doc["base_model_sha256"], doc["candidate_model_sha256"]) == (
        programs["arm"]["sha256"], programs["ns"]["sha256"])
    assert doc["layers"] == [[0, 0], [2, 1], [5, 3], [11, 7]]


def test_bundles_find_their_programs_by_sha256() -> None:
    programs = MANIFEST["models"]["tier1"]["programs"]
    arm, ns = programs["arm"]["sha256"], programs["ns"]["sha256"]
    for model in ("tier1", None):
        doc = match_for_bundles(MANIFEST, model, arm, ns)
        assert doc["layers"] == [[0, 0], [2, 1], [5, 3], [11, 7]]
        assert doc["regions"] == {"Tier-1": {"base": [1, 3, 4, 6, 7, 8, 9, 10],
                                             "candidate": [2, 4, 5, 6]}}
    reverse = match_for_bundles(MANIFEST, "tier1", ns, arm)
    assert reverse["regions"]["Tier-1"]["candidate"] == [1, 3, 4, 6, 7, 8, 9, 10]


def test_programs_the_manifest_lacks_are_refused() -> None:
    arm = MANIFEST["models"]["tier1"]["programs"]["arm"]["sha256"]
    mean_ns = MANIFEST["models"]["tier1mean"]["programs"]["ns"]["sha256"]
    with pytest.raises(ConfigError, match="no model 'tier2'"):
        match_for_bundles(MANIFEST, "tier2", arm, arm)
    with pytest.raises(ConfigError, match="no programs of model 'tier1'"):
        match_for_bundles(MANIFEST, "tier1", arm, mean_ns)


def test_the_engine_answers_only_for_its_own_manifest() -> None:
    hooks = EngineHooks(default_registry())
    arm = MANIFEST["models"]["tier1mean"]["programs"]["arm"]["sha256"]
    ns = MANIFEST["models"]["tier1mean"]["programs"]["ns"]["sha256"]
    answer = hooks.match_manifest("executorch", ManifestRequest(MANIFEST, None, arm, ns))
    assert answer is not None and answer.base_model_sha256 == arm
    assert [(r.name, r.candidate) for r in answer.regions] == [("Tier-1", (1,))]
    assert hooks.match_manifest("executorch",
                                ManifestRequest({"hpx_match": 1}, None, arm, ns)) is None
