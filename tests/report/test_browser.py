"""The reports in a real headless browser (Debian chromium): no console errors, not blank.

A page with a deliberate console error and a blank page are checked too, so the test shows
that it can see errors and blank screenshots at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import load_page, needs_chromium, page_dom
from check_bundles import checked_bundle
from selftest_bundles import bundle

from hpx_core.compare import apply_policy, compare, default_policy, load_view
from hpx_core.compare.page import comparison_report
from hpx_core.report import bundle_report

pytestmark = [pytest.mark.emulated, needs_chromium]


def _write(tmp_path: Path, name: str, html: str) -> Path:
    path = tmp_path / name
    path.write_text(html, encoding="utf-8")
    return path


def test_the_check_sees_console_errors_and_blank_pages(tmp_path: Path) -> None:
    noisy = _write(
        tmp_path,
        "noisy.html",
        "<!DOCTYPE html><p>x</p><script>console.error('hpx-canary')</script>",
    )
    console, _ = load_page(noisy, tmp_path)
    assert any("hpx-canary" in line for line in console), console
    blank = _write(tmp_path, "blank.html", "<!DOCTYPE html><body></body>")
    _, variance = load_page(blank, tmp_path)
    assert variance == 0


def test_bundle_report_renders(tmp_path: Path) -> None:
    page = _write(tmp_path, "bundle.html", bundle_report(load_view(bundle())))
    console, variance = load_page(page, tmp_path)
    assert console == []
    assert variance > 100


def test_the_memory_section_renders_its_bars_and_chart(tmp_path: Path) -> None:
    from matrix_folders import arena_matrix

    for name, path in (("deeper", bundle(variant="deeper")),
                       ("arena", arena_matrix().cells[0].bundle)):
        assert path is not None
        view = load_view(path)
        assert view.memory is not None
        page = _write(tmp_path, f"{name}.html", bundle_report(view))
        console, variance = load_page(page, tmp_path)
        assert console == [], name
        assert variance > 100, name
        dom = page_dom(page, tmp_path)
        assert dom.count('class="region-bar"') == len(view.memory.regions) == 4, name
        assert dom.count('class="region-part rest"') == sum(
            1 for r in view.memory.regions if r.used), name
        chart = dom[dom.index('class="chart memory-chart"'):]
        assert chart.index("<svg") < chart.index("</div>"), name  # the chart parsed in place
        assert 'id="memory-summary"' in dom, name
        assert ('id="kernel-checks"' in dom) == bool(view.kernel_checks), name


def test_a_bundle_with_a_divergent_layer_renders_it_marked(tmp_path: Path) -> None:
    html = bundle_report(load_view(checked_bundle("divergent")))
    assert 'class="divergent" title="first divergent layer"' in html
    assert "first divergent layer 1 plus_one" in html
    console, variance = load_page(_write(tmp_path, "checked.html", html), tmp_path)
    assert console == []
    assert variance > 100


def test_comparison_reports_render(tmp_path: Path) -> None:
    c = compare(load_view(bundle()), load_view(bundle(variant="slower")))
    d = compare(load_view(bundle("qemu-m55")), load_view(bundle("qemu-m4")))
    for name, html in (
        ("slower", comparison_report(c, apply_policy(c, default_policy(c)))),
        ("divergent", comparison_report(d)),
    ):
        console, variance = load_page(_write(tmp_path, f"{name}.html", html), tmp_path)
        assert console == [], name
        assert variance > 100, name


def test_matrix_report_renders(tmp_path: Path) -> None:
    from matrix_folders import smoke_matrix

    result = smoke_matrix()
    page = result.folder / "report.html"  # as written, beside the cells it links to
    html = page.read_text()
    for cell in result.with_status("complete"):
        assert cell.numbers is not None and f"{cell.numbers.whole:,}" in html
        assert f'href="cells/{cell.id}/report.html"' in html
    console, variance = load_page(page, tmp_path)
    assert console == []
    assert variance > 100


@pytest.mark.usefixtures("loops_installed")
def test_a_bundle_with_an_instruction_profile_and_an_estimate_renders(tmp_path: Path) -> None:
    from insight_flags import insight_line

    from hpx_core import pipeline

    model = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/ad01_int8.tflite"
    line = insight_line(model=model, engine="loops", board="qemu-m55", iterations=1,
                        estimate_for="apollo510_evb", output_dir=tmp_path / "out")
    outcome = pipeline.profile(None, None, line.overrides())
    assert outcome.bundle is not None
    html = bundle_report(load_view(outcome.bundle))
    assert 'class="instruction-profile"' in html and 'class="cycle-estimate"' in html
    console, variance = load_page(_write(tmp_path, "profiled.html", html), tmp_path)
    assert console == []
    assert variance > 100
