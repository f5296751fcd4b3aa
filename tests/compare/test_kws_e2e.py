"""KWS (MLPerf Tiny) with the ``tflm`` engine on the emulated Cortex-M55: reference vs cmsis_nn.

Needs the pinned engine sources (``nox -s e2e``). The default session covers the same checks
on selftest bundles (the other tests in this folder).
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from profiles import profile_run

from hpx_core.cli import main
from hpx_core.compare import compare, load_view
from hpx_core.pipeline import ProfileOutcome
from hpx_core.reading import load_model

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
KWS = MODELS / "kws_ref_model.tflite"
VWW = MODELS / "vww_96_int8.tflite"
ZERO = "hpx_policy: 1\nmetrics:\n  whole_inference: {max_regression_pct: 0}\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("kws")
    jobs = {
        "reference": (KWS, "reference"),
        "cmsis_nn": (KWS, "cmsis_nn"),
        "vww": (VWW, "reference"),
    }
    return {
        name: _bundle(profile_run(model, "tflm", "qemu-m55", work / name, backend=backend))
        for name, (model, backend) in jobs.items()
    }


def _bundle(outcome: ProfileOutcome) -> Path:
    assert outcome.record is not None, "the run did not reach its results"
    return outcome.record.bundle


def _summary(path: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((path / "summary.json").read_text())  # type: ignore[no-any-return]


def test_backend_deltas_are_the_difference_of_the_bundles(runs: dict[str, Path]) -> None:
    ref, cmsis = runs["reference"], runs["cmsis_nn"]
    c = compare(load_view(ref), load_view(cmsis))
    mr, mc = _summary(ref)["measurement"], _summary(cmsis)["measurement"]
    assert c.total("whole inference").delta == (
        mc["whole_inference"]["median"] - mr["whole_inference"]["median"]
    )
    ops = [op.name for op in load_model(KWS).operators]
    assert len(c.layers) == len(ops) and c.divergence is None
    for d in c.layers:
        lr, lc = mr["layers"][d.base.index], mc["layers"][d.candidate.index]
        assert d.base.op == ops[d.base.index]
        assert d.delta == lc["median"] - lr["median"]
    assert {d.name for d in c.differing} >= {"backend", "engine library"}
    backend = next(d for d in c.dimensions if d.name == "backend")
    assert (backend.base, backend.candidate) == ("reference", "cmsis_nn")


def test_zero_policy_fails_when_the_slower_backend_is_the_candidate(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = tmp_path / "zero.yaml"
    policy.write_text(ZERO)
    junit = tmp_path / "junit.xml"
    ref, cmsis = str(runs["reference"]), str(runs["cmsis_nn"])
    slower = main(["compare", cmsis, ref, "--policy", str(policy), "--junit", str(junit)])
    failures = ET.parse(junit).getroot().findall(".//failure")
    assert slower == 1 and len(failures) == 1
    faster = main(["compare", ref, cmsis, "--policy", str(policy), "--junit", str(junit)])
    assert faster == 0 and ET.parse(junit).getroot().findall(".//failure") == []
    capsys.readouterr()


def test_tampered_kws_bundle_is_refused(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "tampered"
    shutil.copytree(runs["cmsis_nn"], copy)
    (copy / "capture.bin").write_bytes((copy / "capture.bin").read_bytes()[:-1])
    assert main(["compare", str(runs["reference"]), str(copy)]) == 1
    assert "capture.bin was modified" in capsys.readouterr().err


def test_other_model_diverges_where_its_ops_differ(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kws, vww = load_view(runs["reference"]), load_view(runs["vww"])
    assert main(["compare", str(runs["reference"]), str(runs["vww"])]) == 1
    assert "different models" in capsys.readouterr().err
    kws_ops = [op.name for op in load_model(KWS).operators]
    vww_ops = [op.name for op in load_model(VWW).operators]
    first = next(i for i, (a, b) in enumerate(zip(kws_ops, vww_ops, strict=False)) if a != b)
    manifest = tmp_path / "match.yaml"
    manifest.write_text(
        f"hpx_match: 1\nbase_model_sha256: {kws.model_sha256}\n"
        f"candidate_model_sha256: {vww.model_sha256}\n"
    )
    assert (
        main(["compare", str(runs["reference"]), str(runs["vww"]), "--manifest", str(manifest)])
        == 0
    )
    out = capsys.readouterr().out
    assert f"diverge at layer {first}" in out
    assert f"({kws_ops[first]})" in out and f"({vww_ops[first]})" in out
