"""HTML reports: self-contained, complete and deterministic."""

from __future__ import annotations

import re

import pytest
from selftest_bundles import bundle

from hpx_core.compare import apply_policy, compare, default_policy, load_view
from hpx_core.compare.page import comparison_report
from hpx_core.report import bundle_report

pytestmark = pytest.mark.emulated

EXTERNAL = re.compile(r"""(?:src|href|url)\s*[=(]\s*["']?(?!#|data:)[a-z]+:""", re.IGNORECASE)


def _self_contained(html: str) -> None:
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert not EXTERNAL.search(html), EXTERNAL.search(html)


def test_bundle_report_shows_summary_layers_sizes_provenance() -> None:
    view = load_view(bundle())
    html = bundle_report(view)
    _self_contained(html)
    assert html.count("<svg") == 1
    assert f"{view.whole_median:,}" in html and f"{view.layer_sum:,}" in html
    for layer in view.layers:
        assert f"<td>{layer.name}</td>" in html
    assert f"{view.sizes['text']:,} bytes" in html
    assert "QEMU emulator version" in html and ">valid<" in html
    assert bundle_report(view) == html  # deterministic


def test_comparison_report_shows_policy_dimensions_and_deltas() -> None:
    c = compare(load_view(bundle()), load_view(bundle(variant="slower")))
    html = comparison_report(c, apply_policy(c, default_policy(c)))
    _self_contained(html)
    assert html.count("<svg") == 2
    assert "failed" in html and "+150,000" in html and "+50.000%" in html


def test_divergent_comparison_report_says_where() -> None:
    c = compare(load_view(bundle("qemu-m55")), load_view(bundle("qemu-m4")))
    html = comparison_report(c)
    _self_contained(html)
    assert c.divergence is not None  # the m4's selftest has no MVE layer: they part there
    assert c.divergence.base_layer.op == "mve"
    assert f"diverge at layer {c.divergence.index}" in html and html.count("<svg") == 2
    assert '<tr class="differs"><td>board</td><td>qemu-m55</td><td>qemu-m4</td></tr>' in html
