"""Regression policies: the file format, the arithmetic, and the defaults on real bundles."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from selftest_bundles import EXTRA_INSTRUCTIONS, bundle, first_divergent_layer

from hpx_core.compare import (
    Rule,
    apply_policy,
    compare,
    default_policy,
    load_policy,
    load_view,
)
from hpx_core.errors import ConfigError
from hpx_core.results.view import BundleView, LayerView

ZERO = """\
hpx_policy: 1
metrics:
  whole_inference: {direction: lower, max_regression_pct: 0}
  layers: {max_regression_pct: 0, missing: warn}
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    return path


def test_load_policy(tmp_path: Path) -> None:
    policy = load_policy(_write(tmp_path, ZERO))
    assert policy.rules["whole_inference"] == Rule(direction="lower", max_regression_pct=0.0)
    assert policy.rules["layers"].missing == "warn"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("metrics: {}\n", "needs 'hpx_policy: 1'"),
        ("hpx_policy: 2\nmetrics: {layers: {}}\n", "needs 'hpx_policy: 1'"),
        ("hpx_policy: 1\nmetrics: {latency: {}}\n", "unknown metrics"),
        ("hpx_policy: 1\nmetrics: {layers: {direction: up}}\n", r"metrics\.layers\.direction"),
        ("hpx_policy: 1\nmetrics: {layers: {max_regression_pct: -1}}\n", "must be a number"),
        ("hpx_policy: 1\nmetrics: {layers: {max_pct: 1}}\n", "unknown keys"),
    ],
)
def test_bad_policies_name_the_problem(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        load_policy(_write(tmp_path, text))


def test_rule_allows_the_most_generous_limit_plus_noise() -> None:
    assert Rule(max_regression_pct=1.0).allowed(1000, noise=3) == 10.0
    assert Rule(max_regression_pct=1.0, max_regression_abs=25).allowed(1000, noise=3) == 25.0
    assert Rule(max_regression_pct=1.0, noise="spread").allowed(1000, noise=3) == 13.0
    assert Rule().allowed(1000, noise=3) == 0.0


@pytest.mark.emulated
def test_zero_tolerance_fails_when_the_candidate_is_slower(tmp_path: Path) -> None:
    policy = load_policy(_write(tmp_path, ZERO))
    fast, slow = load_view(bundle()), load_view(bundle(variant="slower"))
    worse = apply_policy(compare(fast, slow), policy)
    assert not worse.passed
    failed = {(c.metric, c.subject): c for c in worse.failures}
    assert set(failed) == {
        ("whole_inference", "whole inference"),
        ("layers", "layer 4 float (fpu)"),
    }
    assert failed[("whole_inference", "whole inference")].delta == EXTRA_INSTRUCTIONS
    better = apply_policy(compare(slow, fast), policy)
    assert better.passed and len(better.checks) == 1 + len(fast.layers)


@pytest.mark.emulated
def test_default_policy_is_zero_tolerance_for_emulated_runs() -> None:
    fast, slow = load_view(bundle()), load_view(bundle(variant="slower"))
    c = compare(fast, slow)
    policy = default_policy(c)
    assert "emulated" in policy.source
    assert all(r.noise == "none" and r.max_regression_pct == 0 for r in policy.rules.values())
    assert not apply_policy(c, policy).passed
    assert apply_policy(compare(slow, fast), policy).passed


def _jitter(view: BundleView, name: str, shift: int, jitter: int) -> BundleView:
    """``view`` with layer ``name`` moved by ``shift`` and its samples spread by +-``jitter``."""

    def moved(layer: LayerView) -> LayerView:
        if layer.name != name:
            return layer
        m = layer.median + shift
        return attrs.evolve(layer, samples=(m - jitter, m, m + jitter), median=m)

    return attrs.evolve(view, layers=tuple(moved(x) for x in view.layers))


@pytest.mark.emulated
def test_silicon_default_tolerates_the_recorded_spread() -> None:
    # Pretend the real run came from silicon, where the "memory" layer jitters by +-2 (spread 4).
    real = load_view(bundle())
    base = _jitter(attrs.evolve(real, emulated=False), "memory", 0, 2)
    within, beyond = _jitter(base, "memory", 4, 2), _jitter(base, "memory", 5, 2)
    c = compare(base, within)
    policy = default_policy(c)
    assert "silicon" in policy.source and policy.rules["layers"].noise == "spread"
    assert apply_policy(c, policy).passed
    outcome = apply_policy(compare(base, beyond), policy)
    failed = [k.subject for k in outcome.failures]
    assert "layer 3 memory (ldr_str)" in failed and "whole inference" not in failed
    # The same +1 instruction on an emulated run is a regression.
    emulated = compare(real, _jitter(real, "memory", 1, 0))
    assert [k.subject for k in apply_policy(emulated, default_policy(emulated)).failures] == [
        "layer sum",
        "layer 3 memory (ldr_str)",
    ]


@pytest.mark.emulated
def test_divergent_layers_follow_the_missing_rule(tmp_path: Path) -> None:
    c = compare(load_view(bundle("qemu-m55")), load_view(bundle("qemu-m4")))
    strict = load_policy(_write(tmp_path, "hpx_policy: 1\nmetrics: {layers: {missing: fail}}\n"))
    outcome = apply_policy(c, strict)
    assert [k.status for k in outcome.checks] == ["fail"]
    assert f"diverge at layer {first_divergent_layer()}" in outcome.checks[0].message
    lenient = load_policy(_write(tmp_path, "hpx_policy: 1\nmetrics: {layers: {missing: warn}}\n"))
    assert apply_policy(c, lenient).passed
