"""Energy gated like time: a policy's ``energy`` rule on the median µJ of one inference, a
failure typed "energy regression" in JUnit, and the default policy leaving energy alone.

The bundles are real selftest bundles (QEMU, the real bundle writer) given the ``energy``
section the power pass writes, computed by hpx's own functions from known traces: the
candidate's inferences draw 5 % more current.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from fake_joulescope import piecewise
from power_pass_fakes import pass_pieces
from selftest_bundles import bundle
from tampered_bundles import copy_bundle, edit_json

from hpx_core.compare import apply_policy, compare, load_policy, load_view
from hpx_core.compare.junit import ENERGY_REGRESSION, junit_xml
from hpx_core.compare.policy import default_policy
from hpx_core.matrix.numbers import read_numbers
from hpx_core.power.trace import PowerTrace
from hpx_core.power.windows import pass_energy
from hpx_core.report.html import bundle_report
from hpx_core.results import verify_bundle
from hpx_core.results.energy import WINDOWS_FILE, energy_document, windows_file

pytestmark = pytest.mark.emulated
RATE, VOLTS, ITERATIONS, LAYERS = 100_000, 1.8, 3, 8


def energy_files(scale: float) -> tuple[dict[str, object], bytes]:
    """The ``energy`` section and the windows' file the power pass writes for a known trace."""
    pieces = pass_pieces([a * scale for a in (0.010, 0.0102, 0.0101)], [0.004 * scale] * LAYERS,
                         whole=1_000, layer=50, idle=100, idle_amps=0.0005)
    s = piecewise(RATE, pieces, VOLTS)
    trace = PowerTrace(RATE, s.current.astype(np.float64), s.voltage.astype(np.float64),
                       (s.gpio0 | (s.gpio1 << 1)).astype(np.uint8))
    setup = {"instrument": "joulescope", "inputs": [0, 1], "supply": "VDD_MCU"}
    energy = pass_energy(trace, ITERATIONS, LAYERS)
    return energy_document(energy, trace, setup), windows_file(trace)


def with_energy(tmp_path: Path, name: str, scale: float) -> Path:
    copied = copy_bundle(bundle(), tmp_path / name)
    document, windows = energy_files(scale)
    (copied / WINDOWS_FILE).write_bytes(windows)
    edit_json(copied, "summary.json", {"energy": document})  # and the manifest rehashed
    assert verify_bundle(copied).status == "complete"  # the schema takes the section
    return copied


def test_more_energy_per_inference_fails_an_energy_policy(tmp_path: Path) -> None:
    base, cand = with_energy(tmp_path, "base", 1.0), with_energy(tmp_path, "cand", 1.05)
    c = compare(load_view(base), load_view(cand))
    total = c.total("energy per inference")
    base_uj = json.loads((base / "summary.json").read_text())["energy"]["median_uj"]
    assert total.unit == "nJ" and total.base == round(base_uj * 1000)
    assert total.pct == pytest.approx(5.0, abs=0.01)
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text("hpx_policy: 1\nmetrics:\n  energy: {max_regression_pct: 2}\n")
    outcome = apply_policy(c, load_policy(policy_file))
    assert [k.metric for k in outcome.failures] == ["energy"]
    case = next(ET.fromstring(junit_xml(c, outcome).tostring()).iter("testcase"))
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == ENERGY_REGRESSION
    assert apply_policy(compare(load_view(cand), load_view(base)),
                        load_policy(policy_file)).passed  # less energy is no regression
    assert "energy" not in default_policy(c).rules  # never gated unless asked for
    numbers = read_numbers(base)  # a matrix cell's energy column
    assert numbers is not None and numbers.energy_uj == pytest.approx(base_uj)


def test_the_page_shows_each_layers_energy_and_the_current_through_the_windows(
        tmp_path: Path) -> None:
    page = bundle_report(load_view(with_energy(tmp_path, "base", 1.0)))
    assert "<th>µJ</th>" in page and '<h2>Energy</h2>' in page
    per_layer = 50 * 0.004 * VOLTS / RATE * 1e6  # every layer draws 4 mA for 50 samples
    assert page.count(f'<td class="n">{per_layer:.3f}</td>') == LAYERS
    chart = page[page.index('class="chart energy-chart"'):]
    assert chart.index("<svg") < 40 and "current (mA)" in chart
    plain = bundle_report(load_view(bundle()))
    assert "<h2>Energy</h2>" not in plain and "<th>µJ</th>" not in plain


def test_an_energy_policy_on_runs_without_energy_says_it_is_missing(tmp_path: Path) -> None:
    plain = bundle()
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text("hpx_policy: 1\nmetrics:\n  energy: {max_regression_pct: 2}\n")
    c = compare(load_view(plain), load_view(plain))
    assert all(t.name != "energy per inference" for t in c.totals)
    (check,) = apply_policy(c, load_policy(policy_file)).checks
    assert check.status == "fail" and "missing in one bundle" in check.message
