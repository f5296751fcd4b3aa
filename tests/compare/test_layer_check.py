"""The layer check in comparisons and policies: two real checked bundles of one firmware."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from check_bundles import checked_bundle
from selftest_bundles import bundle

from hpx_core.compare import apply_policy, compare, default_policy, load_view
from hpx_core.compare.junit import write_junit
from hpx_core.compare.policy import load_policy
from hpx_core.results.check_view import first_disagreement, layer_check_line

pytestmark = pytest.mark.emulated


def _policy(tmp_path: Path) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text("hpx_policy: 1\nmetrics:\n  layer_check: {}\n", encoding="utf-8")
    return path


def test_a_policy_requiring_exact_layers_fails_naming_the_layer(tmp_path: Path) -> None:
    c = compare(load_view(checked_bundle("exact")), load_view(checked_bundle("divergent")))
    outcome = apply_policy(c, load_policy(_policy(tmp_path)))
    (failure,) = outcome.failures
    assert failure.subject == "layer 1 plus_one"
    assert "first divergent layer 1 plus_one: 8 of 8 elements differ" in failure.message
    xml = write_junit(tmp_path / "junit.xml", c, outcome).read_text()
    assert 'testcase name="layer 1 plus_one" classname="hpx.compare.layer_check"' in xml
    assert "<failure" in xml


def test_exact_layers_pass_and_only_checked_runs_are_held_to_it(tmp_path: Path) -> None:
    exact = load_view(checked_bundle("exact"))
    passed = apply_policy(compare(exact, exact), load_policy(_policy(tmp_path)))
    assert passed.passed and passed.checks[0].message == "all 2 layers exact against the host"
    divergent = compare(exact, load_view(checked_bundle("divergent")))
    assert "layer_check" in default_policy(divergent).rules
    assert not apply_policy(divergent, default_policy(divergent)).passed
    plain = compare(load_view(bundle()), load_view(bundle()))
    assert "layer_check" not in default_policy(plain).rules
    (strict,) = apply_policy(plain, load_policy(_policy(tmp_path))).failures
    assert "run without --check-layers" in strict.message


def test_a_check_made_by_another_tool_is_not_required_exact_by_default(tmp_path: Path) -> None:
    exact = load_view(checked_bundle("exact"))
    assert exact.layer_check is not None
    elsewhere = attrs.evolve(exact, layer_check=attrs.evolve(
        exact.layer_check, statuses={}, names={}, device_crcs={},
        note="compared by ExecuTorch's Inspector; hpx wrote etdump.etdp"))
    c = compare(exact, elsewhere)
    assert "layer_check" not in default_policy(c).rules
    (strict,) = apply_policy(c, load_policy(_policy(tmp_path))).failures
    assert strict.message == ("no layer check: compared by ExecuTorch's Inspector; hpx wrote "
                              "etdump.etdp")


def test_the_comparison_shows_each_run_s_layer_check() -> None:
    c = compare(load_view(checked_bundle("exact")), load_view(checked_bundle("divergent")))
    row = next(d for d in c.dimensions if d.name == "layer check")
    assert (row.base, row.candidate) == ("exact", "diverges at layer 1")
    assert json.loads((checked_bundle("divergent") / "summary.json").read_text())[
        "layer_check"]["first_divergent"] == 1


def test_two_runs_whose_devices_disagree_are_told_apart() -> None:
    view = load_view(checked_bundle("exact")).layer_check
    assert view is not None
    other = attrs.evolve(view, device_crcs={0: view.device_crcs[0], 1: (7,)})
    assert first_disagreement(view, view) is None
    assert first_disagreement(view, other) == 1
    assert layer_check_line(view) == "layer check against the host (2 exact)"
