"""JUnit XML: one test case per check, failures where the policy failed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from junitparser import Failure, JUnitXml, TestCase, TestSuite
from selftest_bundles import bundle

from hpx_core.compare import apply_policy, compare, default_policy, load_view
from hpx_core.compare.junit import write_junit, write_junit_file

pytestmark = pytest.mark.emulated


def test_junit_reports_each_check(tmp_path: Path) -> None:
    fast, slow = load_view(bundle()), load_view(bundle(variant="slower"))
    c = compare(fast, slow)
    outcome = apply_policy(c, default_policy(c))
    root = ET.parse(write_junit(tmp_path / "out" / "junit.xml", c, outcome)).getroot()
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == len(outcome.checks) == 2 + len(fast.layers)
    failed = [case.get("name") for case in cases if case.find("failure") is not None]
    assert failed == ["whole inference", "layer sum", "layer 4 float (fpu)"]
    assert suite.get("failures") == "3" and suite.get("tests") == str(len(cases))
    message = cases[0].find("failure").get("message")  # type: ignore[union-attr]
    assert message is not None and "+150,000" in message


def test_junit_of_a_passing_policy_has_no_failures(tmp_path: Path) -> None:
    fast, slow = load_view(bundle()), load_view(bundle(variant="slower"))
    c = compare(slow, fast)
    root = ET.parse(write_junit(tmp_path / "j.xml", c, apply_policy(c, default_policy(c))))
    assert root.getroot().findall(".//failure") == []
    assert len(root.getroot().findall(".//testcase")) == 2 + len(fast.layers)


def test_a_message_with_control_characters_still_makes_xml(tmp_path: Path) -> None:
    """git ends some answers with a NUL and tools colour their words; XML can hold neither."""
    case = TestCase("kws--tflm-reference--apollo510_evb", classname="hpx.matrix.kws")
    case.result = [Failure("cannot clone: possible repository corruption.\x00; \x1b[31mno\x1b[0m",
                           "cell failed")]
    suite = TestSuite("hpx matrix: mixed")
    suite.add_testcase(case)
    xml = JUnitXml("hpx matrix")
    xml.add_testsuite(suite)
    path = write_junit_file(tmp_path / "junit.xml", xml)
    failure = ET.parse(path).getroot().find(".//failure")
    assert failure is not None
    assert failure.get("message") == "cannot clone: possible repository corruption.; [31mno[0m"
    assert [p.name for p in tmp_path.iterdir()] == ["junit.xml"]
