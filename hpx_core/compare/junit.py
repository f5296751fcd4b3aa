"""A policy outcome as JUnit XML, the format CI systems show as test results."""

from __future__ import annotations

from pathlib import Path

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

from hpx_core.compare.diff import Comparison
from hpx_core.compare.policy import NUMERICS, OUTPUTS, PolicyOutcome, is_memory

ENERGY_REGRESSION = "energy regression"
"""A failed energy check: the candidate takes more µJ per inference."""
FAILURE_TYPES = {OUTPUTS: "wrong output", NUMERICS: "layer output differs",
                 "energy": ENERGY_REGRESSION}
"""What a failed check is, by metric, where it is not a regression of a count."""
MEMORY_REGRESSION = "memory regression"
"""A failed memory check: the candidate uses more bytes (a CI page tells it from time)."""


def failure_type(metric: str) -> str:
    """The JUnit failure type of a failed check of ``metric``."""
    if is_memory(metric):
        return MEMORY_REGRESSION
    return FAILURE_TYPES.get(metric, "regression")


def junit_xml(comparison: Comparison, outcome: PolicyOutcome) -> JUnitXml:
    """One test suite per comparison, one test case per check."""
    suite = TestSuite(f"hpx compare: {comparison.base.label} -> {comparison.candidate.label}")
    suite.add_property("base", str(comparison.base.path))
    suite.add_property("candidate", str(comparison.candidate.path))
    suite.add_property("policy", outcome.policy.source)
    for check in outcome.checks:
        case = TestCase(check.subject, classname=f"hpx.compare.{check.metric}")
        if check.status == "fail":
            kind = failure_type(check.metric)
            message = f"{kind}: {check.message}" if kind == MEMORY_REGRESSION else check.message
            case.result = [Failure(message, kind)]
        elif check.status in ("skip", "warn"):
            case.result = [Skipped(check.message)]
        else:
            case.system_out = check.message
        suite.add_testcase(case)
    xml = JUnitXml("hpx compare")
    xml.add_testsuite(suite)
    return xml


def write_junit(path: Path, comparison: Comparison, outcome: PolicyOutcome) -> Path:
    """Write the JUnit file atomically (parent folders created); returns its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        junit_xml(comparison, outcome).write(str(tmp), pretty=True)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
