"""Bundles are read only after they match their manifest, and read faithfully."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from selftest_bundles import bundle
from tampered_bundles import copy_bundle, edit_json, rehash

from hpx_core.compare import load_view
from hpx_core.errors import ResultsError

pytestmark = pytest.mark.emulated


def test_view_reads_the_bundle_numbers() -> None:
    path = bundle()
    summary = json.loads((path / "summary.json").read_text())
    m = summary["measurement"]
    view = load_view(path)
    assert view.whole_median == m["whole_inference"]["median"]
    assert view.whole_samples == tuple(m["whole_inference"]["samples"])
    assert [(x.index, x.name, x.op, x.median) for x in view.layers] == [
        (x["index"], x["name"], x["op"], x["median"]) for x in m["layers"]
    ]
    assert view.layer_sum == m["layer_sum"]
    assert view.emulated and view.units == "instructions (emulated)"
    assert view.sizes["text"] == json.loads((path / "build.json").read_text())["sizes"]["text"]
    assert view.provenance["runner"]["version"].startswith("QEMU emulator version")


def test_tampered_bundle_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "tampered"
    shutil.copytree(bundle(), copy)
    summary = copy / "summary.json"
    data = json.loads(summary.read_text())
    data["measurement"]["whole_inference"]["median"] -= 1000
    summary.write_text(json.dumps(data))
    with pytest.raises(ResultsError, match=r"summary\.json was modified"):
        load_view(copy)


def test_folder_without_manifest_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="not a result bundle"):
        load_view(tmp_path)


def test_a_consistent_summary_of_the_wrong_shape_is_refused(tmp_path: Path) -> None:
    copy = copy_bundle(bundle(), tmp_path)
    edit_json(copy, "summary.json", {"measurement": "abc"})
    with pytest.raises(ResultsError, match=r"summary\.json: measurement: 'abc' is not of type"):
        load_view(copy)


def test_a_file_outside_the_bundle_is_never_read(tmp_path: Path) -> None:
    copy = copy_bundle(bundle(), tmp_path / "results")
    outside = tmp_path / "provenance.json"
    outside.write_text(json.dumps({"runner": {"version": "forged"}}))
    (copy / "provenance.json").unlink()
    (copy / "provenance.json").symlink_to(outside)
    rehash(copy)
    with pytest.raises(ResultsError, match="resolves outside the bundle"):
        load_view(copy)
