"""Pairing the arm and ns programs of one model through the export manifest."""

from __future__ import annotations

from hpx_executorch.tier1 import load_manifest, match_manifest, pair_programs

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
