"""`hpx profile` end to end through the pipeline and the tflm hooks (needs the pinned sources)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hpx_core.cli import main
from hpx_core.sources import PinSet

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


@pytest.mark.e2e
@pytest.mark.emulated
def test_profile_kws_writes_a_verified_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results"
    code = main(
        [
            "profile",
            str(KWS),
            "--engine",
            "tflm",
            "--board",
            "qemu-m55",
            "--output-dir",
            str(out),
            "--iterations",
            "2",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    (bundle,) = out.iterdir()
    summary = json.loads((bundle / "summary.json").read_text())
    layers = summary["measurement"]["layers"]
    assert [layer["op"] for layer in layers][:2] == ["CONV_2D", "DEPTHWISE_CONV_2D"]
    assert len(layers) == 13 and all(layer["median"] > 0 for layer in layers)
    whole = summary["measurement"]["whole_inference"]["median"]
    assert abs(summary["measurement"]["layer_sum"] - whole) <= 0.02 * whole
    assert summary["outputs"]["exact"] is True
    assert "12_softmax" in printed and str(bundle.name) in printed
    assert main(["results", "verify", str(bundle)]) == 0


@pytest.mark.e2e
@pytest.mark.emulated
def test_source_path_override_is_stamped_in_the_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], catalog: PinSet
) -> None:
    from hpx_core.sources import materialize

    pinned = materialize(catalog, "tflm", "reference")
    assert pinned.provenance == "qualified"
    checkout = pinned.path_of("tflite-micro")
    out = tmp_path / "results"
    code = main(
        [
            "profile",
            str(KWS),
            "--engine",
            "tflm",
            "--output-dir",
            str(out),
            "--iterations",
            "1",
            "--engine-config",
            f"source_path={checkout}",
        ]
    )
    assert code == 0, capsys.readouterr()
    (bundle,) = out.iterdir()
    provenance = json.loads((bundle / "provenance.json").read_text())
    assert provenance["sources"] == "qualified-with-engine-override"
    commits = {r["name"]: r["commit"] for r in provenance["repositories"]}
    assert commits["tflite-micro"] == "90b983c2b3f1480642e040bbd2ddb37b998f3424"
