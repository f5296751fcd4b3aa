"""The validation policy's limits against two bundles' figures, as rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.errors import ConfigError
from hpx_core.validation.compare import Row, ValidationPolicy, judge, load_validation_policy

DEFAULT = ValidationPolicy()


def test_the_default_policy_lets_nothing_fall() -> None:
    rows = [Row("y", "device_top1", 68.5, 27.5), Row("y", "top1_agreement", 100.0, 100.0)]
    gates = judge(rows, DEFAULT)
    assert [g.passed for g in gates] == [False, True]
    assert gates[0].message == "y device_top1: 68.50% -> 27.50%, a drop of 41.00 points " \
        "(allowed 0)"


def test_figures_neither_bundle_has_are_not_gated_and_one_side_missing_fails() -> None:
    unlabelled = [Row("y", "device_top1", None, None), Row("y", "top1_agreement", None, None),
                  Row("y", "differing_share", 0.0, 0.0)]
    assert judge(unlabelled, DEFAULT) == []
    (gate,) = judge([Row("y", "device_top1", 70.0, None)], DEFAULT)
    assert not gate.passed and "missing in one bundle" in gate.message


def test_a_policy_file_sets_each_limit(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("hpx_policy: 1\nvalidation:\n  max_accuracy_drop_pct: 1.0\n"
                    "  min_top1_agreement_pct: 99\n  max_differing_share_pct: 0\n")
    policy = load_validation_policy(str(path))
    assert policy == ValidationPolicy(1.0, None, 99.0, 0.0, str(path))
    rows = [Row("y", "device_top1", 70.0, 69.5), Row("y", "top1_agreement", 100.0, 98.0),
            Row("y", "differing_share", 0.0, 0.5)]
    assert [g.passed for g in judge(rows, policy)] == [True, False, False]


def test_an_unknown_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("hpx_policy: 1\nvalidation:\n  max_acuracy_drop_pct: 1\n")
    with pytest.raises(ConfigError) as caught:
        load_validation_policy(str(path))
    assert caught.value.message.endswith(
        "unknown keys ['max_acuracy_drop_pct']; did you mean 'max_accuracy_drop_pct'?")
