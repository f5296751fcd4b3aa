"""The reports in a real headless browser (Debian chromium): no console errors, not blank.

A page with a deliberate console error and a blank page are checked too, so the test shows
that it can see errors and blank screenshots at all.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from check_bundles import checked_bundle
from PIL import Image, ImageStat
from selftest_bundles import bundle

from hpx_core.compare import apply_policy, compare, default_policy, load_view
from hpx_core.compare.page import comparison_report
from hpx_core.report import bundle_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.emulated,
    pytest.mark.skipif(
        CHROMIUM is None, reason="needs Debian chromium (scripts/setup --test installs it)"
    ),
]
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-logging=stderr",
    "--v=0",
    "--window-size=1200,1600",
)
CONSOLE = re.compile(r":(?:INFO|WARNING|ERROR):CONSOLE[^\]]*\]\s*(.*)")


def _load(page: Path, tmp_path: Path) -> tuple[list[str], float]:
    """Console messages of the page and the screenshot's largest per-channel variance."""
    shot = tmp_path / f"{page.stem}.png"
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={tmp_path / f'profile-{page.stem}'}",
            f"--screenshot={shot}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    console = [m.group(1) for m in CONSOLE.finditer(done.stderr)]
    with Image.open(shot) as image:
        variance = max(ImageStat.Stat(image.convert("RGB")).var)
    return console, variance


def _dom(page: Path, tmp_path: Path) -> str:
    """The page's DOM as the browser built it (what it parsed, not the file's text)."""
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / f'dom-{page.stem}'}", "--dump-dom",
         page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


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
    console, _ = _load(noisy, tmp_path)
    assert any("hpx-canary" in line for line in console), console
    _, variance = _load(_write(tmp_path, "blank.html", "<!DOCTYPE html><body></body>"), tmp_path)
    assert variance == 0


def test_bundle_report_renders(tmp_path: Path) -> None:
    page = _write(tmp_path, "bundle.html", bundle_report(load_view(bundle())))
    console, variance = _load(page, tmp_path)
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
        console, variance = _load(page, tmp_path)
        assert console == [], name
        assert variance > 100, name
        dom = _dom(page, tmp_path)
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
    console, variance = _load(_write(tmp_path, "checked.html", html), tmp_path)
    assert console == []
    assert variance > 100


def test_comparison_reports_render(tmp_path: Path) -> None:
    c = compare(load_view(bundle()), load_view(bundle(variant="slower")))
    d = compare(load_view(bundle("qemu-m55")), load_view(bundle("qemu-m4")))
    for name, html in (
        ("slower", comparison_report(c, apply_policy(c, default_policy(c)))),
        ("divergent", comparison_report(d)),
    ):
        console, variance = _load(_write(tmp_path, f"{name}.html", html), tmp_path)
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
    console, variance = _load(page, tmp_path)
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
    console, variance = _load(_write(tmp_path, "profiled.html", html), tmp_path)
    assert console == []
    assert variance > 100
