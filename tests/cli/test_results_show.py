"""`hpx results show` prints a verified bundle and writes its report and overlay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from selftest_bundles import bundle
from tampered_bundles import copy_bundle, edit_json, rehash, write_manifest

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


def test_verify_refuses_a_manifest_path_outside_the_bundle(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    copy = copy_bundle(bundle(), tmp_path / "a" / "b")
    secret = tmp_path / "secret.txt"
    secret.write_text("not yours\n")
    rehash(copy, {"../../../secret.txt": secret})
    assert main(["results", "verify", str(copy)]) == 1
    out, err = capsys.readouterr()
    assert "climbs out of the bundle" in err and "match the manifest" not in out
    assert "Traceback" not in err and len(err.strip().splitlines()) == 2  # error and hint


def test_verify_refuses_an_empty_manifest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    copy = copy_bundle(bundle(), tmp_path)
    for file in copy.iterdir():
        if file.name != "manifest.json":
            file.unlink()
    write_manifest(copy, {})
    assert main(["results", "verify", str(copy)]) == 1
    out, err = capsys.readouterr()
    assert "lists no summary.json" in err and "0 files match" not in out


def test_show_refuses_a_summary_whose_measurement_is_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    copy = copy_bundle(bundle(), tmp_path)
    edit_json(copy, "summary.json", {"measurement": "abc"})
    assert main(["results", "show", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "summary.json: measurement: 'abc' is not of type" in err and "Traceback" not in err
