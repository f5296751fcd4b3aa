"""Pages in a real headless browser (Debian chromium): its console and a screenshot's
variance (what test_browser checks), and the DOM it built."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageStat

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian chromium (scripts/setup --test installs it)")
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


def load_page(page: Path, tmp_path: Path) -> tuple[list[str], float]:
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


def page_dom(page: Path, tmp_path: Path) -> str:
    """The page's DOM as the browser built it (what it parsed, not the file's text)."""
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / f'dom-{page.stem}'}", "--dump-dom",
         page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
