"""Memory gated like time, on real bundles: the selftest whose stack layer goes 1,024 bytes
deeper (same instructions, so the counts are equal), and two loops-engine cells whose arenas
differ by what their configs say (6,000 and 6,600 bytes)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from matrix_folders import ARENAS, arena_matrix
from selftest_bundles import EXTRA_STACK_BYTES, bundle

from hpx_core.compare import Comparison, apply_policy, compare, load_policy, load_view
from hpx_core.compare.export import comparison_json, layers_csv
from hpx_core.compare.junit import MEMORY_REGRESSION, junit_xml
from hpx_core.errors import ConfigError
from hpx_core.selftest.layers import STACK_LAYER_DEPTH

pytestmark = pytest.mark.emulated


def _policy(tmp_path: Path, metrics: str) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(f"hpx_policy: 1\nmetrics:\n{metrics}")
    return path


def _deeper() -> Comparison:
    return compare(load_view(bundle()), load_view(bundle(variant="deeper")))


def _arenas() -> Comparison:
    cells = {c.planned.cell.variant: c for c in arena_matrix().cells}
    small, big = (cells[name].bundle for name in ("small", "big"))
    assert small is not None and big is not None
    return compare(load_view(small), load_view(big))


def test_the_deeper_stack_layer_is_the_stack_delta() -> None:
    c = _deeper()
    stack = c.memory_delta("memory.stack")
    assert stack is not None and stack.delta == EXTRA_STACK_BYTES == 1024
    assert c.base.memory is not None and stack.base == c.base.memory.stack.used
    assert stack.base == c.base.memory.stack.base + STACK_LAYER_DEPTH  # 120 + 2,056 = 2,176
    assert c.memory[0].name == "memory.stack" and c.total("whole inference").delta == 0
    regions = [t for t in c.memory if t.name.startswith("memory.region.")]
    assert {t.name for t in regions} == {f"memory.region.{r}" for r in
                                         ("ITCM", "DTCM", "SRAM", "QSPI")}
    assert all(t.delta == 0 for t in regions)  # one image size: the stack's reserve is fixed
    sram = c.memory_delta("memory.region.SRAM")
    assert sram is not None and sram.base is not None
    assert sram.base >= c.base.memory.stack.size + c.base.sizes["bss"]


def test_a_stack_policy_fails_the_deeper_candidate_as_a_memory_regression(
    tmp_path: Path,
) -> None:
    policy = load_policy(_policy(tmp_path, "  memory.stack: {max_regression_pct: 5}\n"))
    c = _deeper()
    outcome = apply_policy(c, policy)
    assert [k.metric for k in outcome.failures] == ["memory.stack"]
    failed = outcome.failures[0]
    assert failed.delta == 1024 and failed.allowed == pytest.approx(0.05 * failed.base)
    assert "2,176 -> 3,200, +1,024" in failed.message
    root = ET.fromstring(junit_xml(c, outcome).tostring())
    case = next(root.iter("testcase"))
    failure = case.find("failure")
    assert case.get("name") == "memory.stack" and failure is not None
    assert case.get("classname") == "hpx.compare.memory.stack"
    assert failure.get("type") == MEMORY_REGRESSION
    assert str(failure.get("message")).startswith("memory regression: memory.stack: 2,176")
    same = compare(load_view(bundle(variant="deeper")), load_view(bundle(variant="deeper")))
    assert apply_policy(same, policy).passed
    shallower = compare(load_view(bundle(variant="deeper")), load_view(bundle()))
    assert apply_policy(shallower, policy).passed  # less stack is no regression


def test_memory_alone_checks_every_figure_either_run_has(tmp_path: Path) -> None:
    c = _deeper()
    outcome = apply_policy(c, load_policy(_policy(tmp_path, "  memory: {}\n")))
    assert [k.metric for k in outcome.checks] == [t.name for t in c.memory]
    assert [k.metric for k in outcome.failures] == ["memory.stack"]


def test_a_figure_the_runs_lack_is_missing(tmp_path: Path) -> None:
    c = _deeper()  # the selftest has no arena
    policy = _policy(tmp_path, "  memory.arena: {max_regression_pct: 5}\n")
    (check,) = apply_policy(c, load_policy(policy)).checks
    assert check.status == "fail" and "missing" in check.message
    policy.write_text("hpx_policy: 1\nmetrics:\n  memory.arena: {missing: skip}\n")
    assert apply_policy(c, load_policy(policy)).checks[0].status == "skip"


@pytest.mark.parametrize("metric", ["memory.", "memry.stack"])
def test_a_metric_that_is_no_memory_figure_is_refused(tmp_path: Path, metric: str) -> None:
    with pytest.raises(ConfigError, match="unknown metrics") as caught:
        load_policy(_policy(tmp_path, f"  {metric}: {{}}\n"))
    assert "memory.<figure>" in caught.value.message and caught.value.hint


def test_two_arenas_differ_by_their_configs(tmp_path: Path) -> None:
    c = _arenas()
    arena = c.memory_delta("memory.arena")
    assert arena is not None
    assert (arena.base, arena.candidate, arena.delta) == (ARENAS["small"], ARENAS["big"], 600)
    assert arena.pct == pytest.approx(10.0)
    stack = c.memory_delta("memory.stack")
    assert stack is not None and stack.delta == 0
    policy = _policy(tmp_path, "  memory.arena: {max_regression_pct: 5}\n")
    outcome = apply_policy(c, load_policy(policy))
    assert [k.metric for k in outcome.failures] == ["memory.arena"]
    policy.write_text("hpx_policy: 1\nmetrics:\n  memory.arena: {max_regression_abs: 600}\n")
    assert apply_policy(c, load_policy(policy)).passed


def test_the_exports_carry_memory() -> None:
    c = _deeper()
    data = comparison_json(c)
    stack = next(t for t in data["memory"] if t["name"] == "memory.stack")
    assert (stack["base"], stack["candidate"], stack["delta"], stack["unit"]) == (
        2176, 3200, 1024, "bytes")
    row = next(x for x in data["layers"] if x["name"] == "stack")
    assert (row["base_stack_bytes"], row["candidate_stack_bytes"]) == (2176, 3200)
    lines = layers_csv(c).splitlines()
    assert lines[0].endswith(",base_stack_bytes,candidate_stack_bytes")
    assert next(x for x in lines if ",stack,stack," in x).endswith(",2176,3200")
