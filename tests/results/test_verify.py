"""Verification trusts nothing a bundle says: not its paths, not its links, not its shapes.

Every bundle here is written by the real writer from a real capture; the attacks then edit it
and rehash the manifest, so every SHA-256 matches and only the checks under test can refuse.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tampered_bundles import edit_json, rehash, write_manifest

from hpx_core.boards import get_board
from hpx_core.errors import ResultsError
from hpx_core.results import BundleInputs, measure, verify_bundle, write_bundle
from hpx_core.wire import parse_capture

STREAM = (
    Path(__file__).resolve().parents[1] / "fixtures" / "wire" / "selftest-qemu-m55.bin"
).read_bytes()


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    board = get_board("qemu-m55")
    inputs = BundleInputs(
        board=board.name, engine="selftest", status="complete",
        counter_units=board.counter_units(), measurement=measure(parse_capture(STREAM), board),
        capture=STREAM, toolchain="arm-none-eabi-gcc 12.2", config={"iterations": 3},
        build={"sizes": {"text": 1000}}, provenance={"hpx": "x"},
    )  # fmt: skip
    return write_bundle(tmp_path / "results", inputs)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file beside the results folder that no bundle may reach."""
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text("not yours\n")
    return path


def refused(bundle: Path) -> str:
    with pytest.raises(ResultsError) as caught:
        verify_bundle(bundle)
    message = caught.value.message
    assert "\n" not in message and caught.value.hint
    return message


def test_an_intact_bundle_verifies(bundle: Path) -> None:
    check = verify_bundle(bundle)
    assert check.status == "complete" and "summary.json" in check.files


def test_a_path_that_climbs_out_is_refused(bundle: Path, secret: Path) -> None:
    rehash(bundle, {"../../outside/secret.txt": secret})
    assert "'../../outside/secret.txt' climbs out of the bundle" in refused(bundle)


def test_an_absolute_path_is_refused(bundle: Path, secret: Path) -> None:
    rehash(bundle, {str(secret): secret})
    assert f"'{secret}' is an absolute path" in refused(bundle)


def test_a_link_to_a_file_outside_is_refused(bundle: Path, secret: Path) -> None:
    (bundle / "provenance.json").unlink()
    (bundle / "provenance.json").symlink_to(secret)
    rehash(bundle)
    assert "'provenance.json' resolves outside the bundle" in refused(bundle)


def test_a_linked_manifest_is_refused(bundle: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "manifest.json"
    (bundle / "manifest.json").rename(elsewhere)
    (bundle / "manifest.json").symlink_to(elsewhere)
    assert "manifest.json resolves outside the bundle" in refused(bundle)


def test_an_empty_manifest_is_not_a_bundle(bundle: Path) -> None:
    for file in bundle.iterdir():
        if file.name != "manifest.json":
            file.unlink()
    write_manifest(bundle, {})
    assert "lists no summary.json" in refused(bundle)


@pytest.mark.parametrize(
    ("files", "says"),
    [
        (["summary.json"], "manifest.json: files: ['summary.json'] is not of type 'object'"),
        ({"summary.json": "abc"}, "manifest.json: files.summary.json: 'abc' is not of type"),
        ({"summary.json": {"sha256": "x", "size": 1}}, "files.summary.json.sha256: 'x' does not"),
        ({"summary.json": {"sha256": "0" * 64, "size": -1}}, "files.summary.json.size: -1 is"),
    ],
    ids=["files-list", "entry-string", "bad-sha", "negative-size"],
)
def test_a_manifest_of_the_wrong_shape_is_refused(bundle: Path, files: object, says: str) -> None:
    write_manifest(bundle, files)
    assert says in refused(bundle)


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"schema": 1, "files": {"a": {"size": 1' + "0" * 5000 + "}}}",
     "\xff\xfe not text"],
    ids=["deep", "5000-digit-int", "not-utf8"],
)
def test_an_unreadable_manifest_is_one_line(bundle: Path, text: str) -> None:
    (bundle / "manifest.json").write_bytes(text.encode("latin-1"))
    assert "manifest.json" in refused(bundle)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"measurement": "abc"}, "summary.json: measurement: 'abc' is not of type 'object'"),
        ({"identity": {"board": 5, "engine": "x"}}, "identity.board: 5 is not of type 'string'"),
        ({"issues": "none"}, "summary.json: issues: 'none' is not of type 'array'"),
        ({"status": "great"}, "summary.json: status: 'great' is not one of"),
    ],
)
def test_a_consistent_summary_of_the_wrong_shape_is_refused(
    bundle: Path, change: dict[str, object], says: str
) -> None:
    edit_json(bundle, "summary.json", change)
    assert says in refused(bundle)


def test_a_layer_of_the_wrong_shape_is_refused(bundle: Path) -> None:
    summary = json.loads((bundle / "summary.json").read_text())
    summary["measurement"]["layers"][1]["median"] = "many"
    edit_json(bundle, "summary.json", summary)
    assert "measurement.layers.1.median: 'many' is not of type 'integer'" in refused(bundle)


def test_build_sizes_must_be_numbers(bundle: Path) -> None:
    edit_json(bundle, "build.json", {"sizes": {"text": "big"}})
    assert "build.json: sizes.text: 'big' is not of type 'integer'" in refused(bundle)


def test_manifest_and_summary_must_agree_on_the_status(bundle: Path) -> None:
    write_manifest(bundle, json.loads((bundle / "manifest.json").read_text())["files"],
                   status="failed")  # fmt: skip
    assert "manifest.json says status 'failed', summary.json says 'complete'" in refused(bundle)


def test_an_edited_csv_with_a_rewritten_manifest_verifies(bundle: Path) -> None:
    """The limit docs/compare.md states: digests are not a signature. An edit caught as long as
    the manifest is left alone verifies once someone rewrites the digest too."""
    csv = bundle / "layers.csv"
    csv.write_text(csv.read_text("utf-8").replace(",", ";", 1), "utf-8")
    with pytest.raises(ResultsError, match=r"layers\.csv"):
        verify_bundle(bundle)
    rehash(bundle)
    assert verify_bundle(bundle).status == "complete"
