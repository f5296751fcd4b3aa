"""`hpx compare` on real emulated bundles: tables, outputs, exit codes, JUnit."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from selftest_bundles import bundle, first_divergent_layer
from tampered_bundles import copy_bundle, write_manifest

from hpx_core.cli import main

pytestmark = pytest.mark.emulated
ZERO = "hpx_policy: 1\nmetrics:\n  whole_inference: {max_regression_pct: 0}\n"


def _run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _match_manifest(tmp_path: Path, base: Path, cand: Path, more: str = "") -> Path:
    """A match manifest naming the two bundles' models, plus ``more`` YAML lines."""
    shas = [
        json.loads((b / "summary.json").read_text())["identity"]["model_sha256"]
        for b in (base, cand)
    ]
    manifest = tmp_path / "match.yaml"
    manifest.write_text(
        f"hpx_match: 1\nbase_model_sha256: {shas[0]}\ncandidate_model_sha256: {shas[1]}\n"
        + more
    )
    return manifest


def _failures(junit: Path) -> list[str]:
    root = ET.parse(junit).getroot()
    return [str(c.get("name")) for c in root.iter("testcase") if c.find("failure") is not None]


def test_zero_policy_fails_on_the_slower_candidate(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(ZERO)
    fast, slow = bundle(), bundle(variant="slower")
    junit = tmp_path / "junit.xml"
    code, out, err = _run(capsys, "compare", fast, slow, "--policy", policy, "--junit", junit)
    assert code == 1
    assert "the candidate regressed: 1 policy checks failed" in err and "Traceback" not in err
    assert "+150,000" in out and "float" in out
    assert _failures(junit) == ["whole inference"]
    code, _, _ = _run(capsys, "compare", slow, fast, "--policy", policy, "--junit", junit)
    assert code == 0 and _failures(junit) == []
    assert len(list(ET.parse(junit).getroot().iter("testcase"))) == 1


def test_output_dir_holds_every_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_dir = tmp_path / "cmp"
    code, out, _ = _run(
        capsys, "compare", bundle(), bundle(variant="slower"), "--top", "2", "--output-dir", out_dir
    )
    assert code == 0  # no policy asked: a report, not a gate
    names = {p.name for p in out_dir.iterdir()}
    assert names == {"comparison.json", "layers.csv", "report.html", "model_explorer_delta.json"}
    assert "top 2 of 8" in out
    data = json.loads((out_dir / "comparison.json").read_text())
    assert len(data["layers"]) == 8 and data["layers"][0]["name"] == "float"


def test_tampered_bundle_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    copy = tmp_path / "tampered"
    shutil.copytree(bundle(variant="slower"), copy)
    csv = copy / "layers.csv"
    csv.write_text(csv.read_text().replace("450002", "300002"))
    code, _, err = _run(capsys, "compare", bundle(), copy)
    assert code == 1
    assert "fails verification: layers.csv was modified" in err and "Traceback" not in err


def test_divergent_sequences_and_dimensions(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "compare", bundle("qemu-m55"), bundle("qemu-m4"))
    assert code == 0
    assert f"diverge at layer {first_divergent_layer()}" in out and "'vector' (mve)" in out
    assert "qemu-m4" in out and "layers by impact" not in out


def test_different_models_point_at_the_manifest(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, cand = bundle(model=True), bundle(variant="slower", model=True)
    code, _, err = _run(capsys, "compare", base, cand)
    assert code == 1 and "different models" in err and "--manifest" in err
    manifest = _match_manifest(tmp_path, base, cand)
    code, out, _ = _run(capsys, "compare", base, cand, "--manifest", manifest)
    assert code == 0 and "+150,000" in out


def test_manifest_regions_print_both_programs_in_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, cand = bundle("qemu-m55", model=True), bundle("qemu-m4", model=True)
    manifest = _match_manifest(
        tmp_path, base, cand,
        "layers: [[0, 0], [4, 4], [6, 5]]\n"
        "regions: {between: {base: [1, 2, 3, 5], candidate: [1, 2, 3]}}\n",
    )
    out_dir = tmp_path / "out"
    code, out, _ = _run(capsys, "compare", base, cand, "--manifest", manifest,
                        "--output-dir", out_dir)
    assert code == 0 and "layers in program order" in out and "between region" in out
    data = json.loads((out_dir / "comparison.json").read_text())
    assert [r["region"] for r in data["aligned"]].count("between") == 7
    region = next(t for t in data["totals"] if t["name"] == "between region")
    assert region["delta"] == region["candidate"] - region["base"]


def test_a_file_no_engine_reads_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base, cand = bundle(model=True), bundle(variant="slower", model=True)
    other = tmp_path / "export.json"
    other.write_text('{"schema": "someone-else/1"}')
    code, _, err = _run(capsys, "compare", base, cand, "--manifest", other)
    assert code != 0 and "neither a match manifest nor an export manifest" in err
    code, _, err = _run(capsys, "compare", base, cand, "--model", "tier1")
    assert code != 0 and "--model needs --manifest" in err


def test_the_output_dir_of_a_run_stands_for_its_one_bundle(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``hpx profile --output-dir DIR`` writes its bundle into a folder inside DIR."""
    fast, slow = tmp_path / "fast", tmp_path / "slow"
    shutil.copytree(bundle(), fast / bundle().name)
    shutil.copytree(bundle(variant="slower"), slow / bundle(variant="slower").name)
    (fast / ".tmp-bundle-unfinished").mkdir()  # a run still writing is not a second bundle
    code, out, err = _run(capsys, "compare", fast, slow, "--policy", "default")
    assert code == 1 and "the candidate regressed" in err
    assert "+150,000" in out
    assert f"the bundle {bundle(variant='slower').name}" in out


def test_a_folder_of_several_bundles_lists_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    both = tmp_path / "runs"
    for variant in ("standard", "slower"):
        shutil.copytree(bundle(variant=variant), both / f"{variant}-{bundle(variant=variant).name}")
    code, _, err = _run(capsys, "compare", both, bundle())
    assert code != 0 and "Traceback" not in err
    assert f"{both} holds 2 result bundles, not one" in err
    for variant in ("standard", "slower"):
        assert f"{variant}-{bundle(variant=variant).name}" in err


@pytest.mark.parametrize(
    ("files", "says"),
    [(["summary.json"], "files: ['summary.json'] is not of type 'object'"),
     ({"summary.json": "abc"}, "files.summary.json: 'abc' is not of type 'object'")],
    ids=["files-list", "entry-string"],
)
def test_a_manifest_of_the_wrong_shape_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, files: object, says: str
) -> None:
    copy = copy_bundle(bundle(variant="slower"), tmp_path)
    write_manifest(copy, files)
    code, _, err = _run(capsys, "compare", bundle(), copy)
    assert code == 1 and says in err and "Traceback" not in err


def test_a_memory_policy_fails_the_deeper_stack_and_every_output_says_memory(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("hpx_policy: 1\nmetrics:\n  memory.stack: {max_regression_pct: 5}\n")
    junit, out_dir = tmp_path / "junit.xml", tmp_path / "cmp"
    code, out, err = _run(capsys, "compare", bundle(), bundle(variant="deeper"), "--policy",
                          policy, "--junit", junit, "--output-dir", out_dir)
    assert code == 1 and "1 policy checks failed" in err
    assert "memory (bytes)" in out and "memory.stack" in out and "+1,024" in out
    assert _failures(junit) == ["memory.stack"]
    failure = next(ET.parse(junit).getroot().iter("failure"))
    assert failure.get("type") == "memory regression"
    data = json.loads((out_dir / "comparison.json").read_text())
    assert data["memory"][0]["name"] == "memory.stack" and data["memory"][0]["delta"] == 1024
    html = (out_dir / "report.html").read_text()
    assert 'id="memory-deltas"' in html and "memory.region.SRAM" in html
    code, _, _ = _run(capsys, "compare", bundle(variant="deeper"), bundle(variant="deeper"),
                      "--policy", policy)
    assert code == 0
