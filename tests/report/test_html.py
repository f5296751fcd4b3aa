"""HTML reports: self-contained, complete and deterministic."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest
from selftest_bundles import bundle

from hpx_core.compare import apply_policy, compare, default_policy, load_view
from hpx_core.compare.page import comparison_report
from hpx_core.report import bundle_report
from hpx_core.sources import PinSet

pytestmark = pytest.mark.emulated

EXTERNAL = re.compile(r"""(?:src|href|url)\s*[=(]\s*["']?(?!#|data:)[a-z]+:""", re.IGNORECASE)


def _self_contained(html: str) -> None:
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert not EXTERNAL.search(html), EXTERNAL.search(html)


def test_bundle_report_shows_summary_layers_sizes_provenance() -> None:
    view = load_view(bundle())
    html = bundle_report(view)
    _self_contained(html)
    assert html.count("<svg") == 2  # the layers' counts, and their stack
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


def test_bundle_report_shows_the_memory_the_device_used() -> None:
    view = load_view(bundle(variant="deeper"))
    use = view.memory
    assert use is not None and use.stack.used == 3200  # the deeper stack layer's bundle
    html = bundle_report(view)
    assert "<li>stack: 3,200 B at the deepest of 65,536 B" in html
    assert html.count('<tr class="memory-region">') == len(use.regions) == 4
    for region in use.regions:
        assert f"<td>{region.name}</td><td class=\"n\">{region.used:,} B</td>" in html
        assert f"<small>{100 * region.used / region.length:.2f}%</small>" in html
    assert 'class="chart memory-chart"><svg' in html and "stack (deepest point)" in html
    stack_row = html[html.index("<td>stack</td>"):]
    assert '<td class="n">3,200</td>' in stack_row[: stack_row.index("</tr>")]
    assert "<th>stack B</th>" in html


def test_bundle_report_shows_arena_kernel_checks_and_no_output_check() -> None:
    from matrix_folders import ARENAS, arena_matrix

    cell = next(c for c in arena_matrix().cells if c.planned.cell.variant == "big")
    assert cell.bundle is not None
    view = load_view(cell.bundle)
    html = bundle_report(view)
    _self_contained(html)
    assert f"arena: used {ARENAS['big']:,} B" in html and "arena in use" in html
    assert "<th>arena B</th>" in html and f'<td class="n">{ARENAS["big"]:,}</td>' in html
    assert view.kernel_checks and view.kernel_checks[0].passed
    checks = html[html.index('id="kernel-checks"'):]
    assert "<td>engine library linked</td>" in checks and "passed" in checks
    # the loops engine claims no output unless asked: the page says nothing compared them
    assert '<span class="badge unchecked">not checked</span> outputs: NOT CHECKED' in html
    assert "Built from no fetched repositories." in html
    argv = " ".join(view.provenance["runner"]["argv"])
    assert f"<th>runner.argv</th><td><code>{argv}</code>" in html  # one line, not JSON


def test_repositories_are_rows_of_their_own(catalog: PinSet) -> None:
    from hpx_core.contract import SourceRepo, SourceSet
    from hpx_core.pipeline.facts import source_provenance

    pins = [catalog.repositories[name] for name in sorted(catalog.repositories)][:3]
    sources = SourceSet(tuple(SourceRepo(p.name, p.url, p.commit, Path(p.name), p.license)
                              for p in pins))
    view = load_view(bundle())
    view = attrs.evolve(view, provenance={**view.provenance,
                                          **source_provenance(sources, catalog)})
    html = bundle_report(view)
    table = html[html.index('<table class="repositories">'):]
    for pin in pins:
        assert (f"<tr><td>{pin.name}</td><td><code>{pin.url}</code></td><td><code>"
                f"{pin.commit}</code></td><td>{pin.license}</td>") in table
    assert "<th>repositories</th>" not in html and "<th>sources</th>" in html
