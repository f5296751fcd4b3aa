"""`hpx results show` prints a verified bundle and writes its report and overlay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selftest_bundles import bundle

from hpx_core.cli import main

pytestmark = pytest.mark.emulated


def test_show_prints_summary_and_layers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = bundle()
    m = json.loads((path / "summary.json").read_text())["measurement"]
    html, overlay = tmp_path / "r" / "report.html", tmp_path / "r" / "overlay.json"
    code = main(["results", "show", str(path), "--html", str(html), "--overlay", str(overlay)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"{m['whole_inference']['median']:,}" in out and f"{m['layer_sum']:,}" in out
    for layer in m["layers"]:
        assert layer["name"] in out and f"{layer['median']:,}" in out
    assert html.read_text().startswith("<!DOCTYPE html>")
    assert json.loads(overlay.read_text())["results"]["6"]["value"] == m["layers"][6]["median"]


def test_show_top_limits_rows(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["results", "show", str(bundle()), "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "long" in out and "tiny" not in out


def test_show_refuses_a_non_bundle(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["results", "show", str(tmp_path)]) == 1
    assert "not a result bundle" in capsys.readouterr().err
