"""Bundles are written atomically, list every file in the manifest, and catch tampering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.errors import ResultsError, RunError
from hpx_core.results import BundleInputs, measure, verify_bundle, write_bundle
from hpx_core.wire import parse_capture

STREAM = (
    Path(__file__).resolve().parents[1] / "fixtures" / "wire" / "selftest-qemu-m55.bin"
).read_bytes()


def _complete(tmp_path: Path) -> Path:
    board = get_board("qemu-m55")
    measurement = measure(parse_capture(STREAM), board)
    inputs = BundleInputs(
        board=board.name,
        engine="selftest",
        status="complete",
        counter_units=board.counter_units(),
        measurement=measurement,
        capture=STREAM,
        model_sha256="ab" * 32,
        toolchain="arm-none-eabi-gcc 12.2",
        config={"iterations": 3},
        build={"fingerprint": "f" * 64},
        provenance={"hpx": "x"},
    )
    return write_bundle(tmp_path, inputs)


def test_complete_bundle_contents(tmp_path: Path) -> None:
    bundle = _complete(tmp_path)
    names = sorted(p.name for p in bundle.iterdir())
    assert names == [
        "build.json",
        "capture.bin",
        "config.json",
        "layers.csv",
        "manifest.json",
        "provenance.json",
        "summary.json",
        "trace.json",
    ]
    assert (bundle / "capture.bin").read_bytes() == STREAM
    summary = json.loads((bundle / "summary.json").read_text())
    assert summary["status"] == "complete" and summary["validity"] == "valid"
    assert summary["identity"]["counter_units"] == "instructions (emulated)"
    assert summary["identity"]["model_sha256"] == "ab" * 32
    assert "not cycles" in summary["caveat"]
    layers = summary["measurement"]["layers"]
    assert [layer["name"] for layer in layers][:2] == ["tiny", "short"]
    csv_lines = (bundle / "layers.csv").read_text().splitlines()
    assert csv_lines[0].startswith("index,name,op,calls,median")
    assert len(csv_lines) == 1 + len(layers)
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert sorted(manifest["files"]) == [n for n in names if n != "manifest.json"]
    check = verify_bundle(bundle)
    assert check.status == "complete" and len(check.files) == 7
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp")]


def test_modified_file_is_detected(tmp_path: Path) -> None:
    bundle = _complete(tmp_path)
    csv = bundle / "layers.csv"
    csv.write_text(csv.read_text().replace("2002", "2003", 1))
    with pytest.raises(ResultsError, match=r"layers\.csv was modified"):
        verify_bundle(bundle)


def test_missing_and_extra_files_are_detected(tmp_path: Path) -> None:
    bundle = _complete(tmp_path)
    (bundle / "capture.bin").unlink()
    (bundle / "notes.txt").write_text("hi")
    with pytest.raises(ResultsError) as caught:
        verify_bundle(bundle)
    assert "capture.bin is missing" in caught.value.message
    assert "notes.txt is not in the manifest" in caught.value.message


def test_folder_without_manifest_is_not_a_bundle(tmp_path: Path) -> None:
    with pytest.raises(ResultsError, match="not a result bundle"):
        verify_bundle(tmp_path)


def test_failed_bundle_keeps_the_error_and_names_do_not_collide(tmp_path: Path) -> None:
    inputs = BundleInputs(
        board="qemu-m4",
        engine="x",
        status="failed",
        counter_units="u",
        error=RunError("it broke", "fix it"),
        capture=b"partial",
    )
    first = write_bundle(tmp_path, inputs, name="same")
    second = write_bundle(tmp_path, inputs, name="same")
    assert first != second and second.name == "same-2"
    summary = json.loads((first / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["measurement"] is None
    assert summary["error"] == {"type": "RunError", "message": "it broke", "hint": "fix it"}
    assert not (first / "layers.csv").exists()
    verify_bundle(first)


def test_a_failed_bundle_keeps_the_runs_log(tmp_path: Path) -> None:
    log = b"--- heliaAOT 0.18.0 ---\nWARNING helia_aot: unresolved dynamic tensors\n"
    inputs = BundleInputs(board="apollo510_evb", engine="helia-aot", status="failed",
                          counter_units="u", error=RunError("it broke", "fix it"),
                          logs={"run.log": log})
    bundle = write_bundle(tmp_path, inputs)
    assert (bundle / "run.log").read_bytes() == log
    assert "run.log" in verify_bundle(bundle).files


def test_a_failure_while_writing_leaves_nothing_behind(tmp_path: Path) -> None:
    class Unserializable:
        def __str__(self) -> str:
            raise RuntimeError("boom")

    inputs = BundleInputs(
        board="b", engine="e", status="failed", counter_units="u", config={"bad": Unserializable()}
    )
    with pytest.raises(RuntimeError, match="boom"):
        write_bundle(tmp_path, inputs, name="never")
    assert list(tmp_path.iterdir()) == []
