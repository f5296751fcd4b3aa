"""A policy outcome as JUnit XML, the format CI systems show as test results."""

from __future__ import annotations

import io
import re
from pathlib import Path
from xml.dom.minidom import parseString

from junitparser import Failure, JUnitXml, Skipped, TestCase, TestSuite

from hpx_core.atomic import write_atomic
from hpx_core.compare.diff import Comparison
from hpx_core.compare.policy import NUMERICS, OUTPUTS, PolicyOutcome, is_memory

NOT_XML = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
"""Control characters XML 1.0 cannot hold, even escaped (tab, line feed, return it can)."""
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
    """Write the comparison's JUnit file; returns its path."""
    return write_junit_file(path, junit_xml(comparison, outcome))


def write_junit_file(path: Path, xml: JUnitXml) -> Path:
    """Write ``xml`` indented, atomically (parent folders created). Control characters are
    dropped first: a cause quoting a tool can carry one (git ends some errors with a NUL), and
    a JUnit file holding it is no XML, which a CI system refuses whole."""
    plain = io.BytesIO()
    xml.write(plain)
    return write_atomic(path, parseString(NOT_XML.sub(b"", plain.getvalue())).toprettyxml(
        encoding="utf-8"))
