"""The instruction-profile pass in a profile run: asked for, it leaves its files, sections and
views in the bundle without moving a count; what it cannot do is refused before any fetch.

The loops test engine keeps this in the default session (the real toolchain, QEMU and hpx's
QEMU plugin; no engine sources).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from emulated_firmware import require_tools
from insight_flags import insight_line
from tampered_bundles import copy_bundle, rehash

from hpx_core import pipeline
from hpx_core.cli import main
from hpx_core.errors import ResultsError, UsageError
from hpx_core.plugins import default_registry
from hpx_core.report.html import bundle_report
from hpx_core.results import verify_bundle
from hpx_core.results.trace import LAYERS_TID
from hpx_core.results.view import load_view

pytestmark = [pytest.mark.emulated, pytest.mark.usefixtures("loops_installed")]
KWS = (Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny" /
       "kws_ref_model.tflite")


def _profile(out: Path, **flags: object) -> pipeline.ProfileOutcome:
    line = insight_line(model=KWS, engine="loops", board="qemu-m55", iterations=2,
                       output_dir=out, **flags)
    return pipeline.profile(None, None, line.overrides())


@pytest.fixture(scope="module")
def profiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    require_tools()
    root = tmp_path_factory.mktemp("insight")
    with pytest.MonkeyPatch.context() as patch:
        from loops_engine import loops_paths

        for folder in loops_paths(root / "site"):
            patch.syspath_prepend(str(folder))
        default_registry(reload=True)
        plain = _profile(root / "plain")
        estimated = _profile(root / "estimated", estimate_for="apollo510_evb")
    default_registry(reload=True)  # the loops engine leaves the process's registry too
    assert plain.bundle is not None and estimated.bundle is not None
    return plain.bundle, estimated.bundle


def test_the_pass_writes_its_files_and_moves_no_count(profiled: tuple[Path, Path]) -> None:
    plain, estimated = (load_view(b) for b in profiled)
    assert plain.pass_documents == {}
    assert {"instruction_profile.json", "cycle_estimate.json"} <= set(
        verify_bundle(estimated.path).files)
    assert estimated.whole_median == plain.whole_median
    assert [x.samples for x in estimated.layers] == [x.samples for x in plain.layers]
    summary = json.loads((estimated.path / "summary.json").read_text())
    assert summary["instruction_profile"]["matches_counts"] is True
    assert summary["instruction_profile"]["estimate_for"] == "apollo510_evb"


def test_each_layer_has_its_profile_and_its_estimate(profiled: tuple[Path, Path]) -> None:
    view = load_view(profiled[1])
    profile = view.pass_documents["instruction_profile.json"]
    estimate = view.pass_documents["cycle_estimate.json"]
    per_pass = {layer["index"]: layer for layer in profile["layers"]}
    for layer in view.layers:
        assert set(per_pass[layer.index]["instructions"]) == {layer.median}
    estimated = {s["index"]: s for s in estimate["layers"]}
    assert set(estimated) == {layer.index for layer in view.layers}
    assert all(s["estimated_cycles"] > 0 for s in estimated.values())
    assert estimate["metric"] == "estimated_cycles"


def test_the_page_and_the_trace_show_the_profile(profiled: tuple[Path, Path]) -> None:
    view = load_view(profiled[1])
    page = bundle_report(view)
    assert 'class="instruction-profile"' in page and 'class="cycle-estimate"' in page
    assert "Estimated cycles on apollo510_evb" in page and "not a measurement" in page
    trace = json.loads((view.path / "trace.json").read_text())["traceEvents"]
    layers = [e for e in trace if e.get("tid") == LAYERS_TID and e.get("ph") == "X"]
    functions = [e for e in trace if e.get("cat") == "function"]
    assert layers and functions
    assert {f["args"]["layer"] for f in functions} <= {e["args"]["index"] for e in layers}


def test_the_console_and_compare_show_the_estimate_apart(
        profiled: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["compare", str(profiled[0]), str(profiled[1])])
    out = capsys.readouterr().out
    assert code == 0 and "estimated cycles" not in out  # the base has none: nothing to show
    code = main(["compare", str(profiled[1]), str(profiled[1])])
    out = capsys.readouterr().out
    assert code == 0 and "estimated cycles (not measured)" in out


@pytest.mark.parametrize(("flags", "words"), [
    ({"board": "apollo510_evb", "instruction_profile": True}, "run on the emulated boards"),
    ({"estimate_for": "apollo4p_evb"}, "qemu-m55 has a cortex-m55, apollo4p_evb a cortex-m4"),
    ({"estimate_for": "qemu-m4"}, "qemu-m4 is an emulated board"),
    ({"instruction_profile": True, "calibration": Path("cal.json")}, "none is asked for"),
])
def test_what_the_pass_cannot_do_is_refused_before_any_fetch(
        flags: dict[str, object], words: str, tmp_path: Path) -> None:
    stages: list[str] = []
    line = insight_line(**{"model": KWS, "engine": "loops", "board": "qemu-m55",
                          "output_dir": tmp_path, **flags})
    with pytest.raises(UsageError) as refused:
        pipeline.profile(None, None, line.overrides(), on_stage=stages.append)
    assert words in refused.value.message
    assert stages == ["config"]


def test_hpx_profile_prints_the_estimate_beside_the_counts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_tools()
    code = main(["profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                 "--iterations", "1", "--estimate-for", "apollo510_evb",
                 "--output-dir", str(tmp_path)])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert "est. cycles apollo510_evb" in out
    assert "estimated on apollo510_evb:" in out and "not a measurement" in out


def _tampered(profiled: tuple[Path, Path], into: Path, text: str) -> Path:
    """The estimated bundle with its estimate replaced by ``text``, the manifest made to agree."""
    bundle = copy_bundle(profiled[1], into)
    (bundle / "cycle_estimate.json").write_text(text, encoding="utf-8")
    rehash(bundle)
    return bundle


def _estimate_text(profiled: tuple[Path, Path], cycles: str) -> str:
    text = (profiled[1] / "cycle_estimate.json").read_text(encoding="utf-8")
    first = json.loads(text)["whole"]["estimated_cycles"]
    return text.replace(f'"estimated_cycles": {first}', f'"estimated_cycles": {cycles}', 1)


@pytest.mark.parametrize(("cycles", "words"), [
    ("NaN", "NaN is not a JSON number"), ("Infinity", "Infinity is not a JSON number"),
    ("-5.0", "is less than the minimum of 0"), ("1e300", "is greater than the maximum"),
])
def test_a_nonsense_estimate_is_refused_by_verify_show_and_compare(
        profiled: tuple[Path, Path], cycles: str, words: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    bundle = _tampered(profiled, tmp_path, _estimate_text(profiled, cycles))
    with pytest.raises(ResultsError, match=words):
        verify_bundle(bundle)
    for argv in (["results", "verify", str(bundle)], ["results", "show", str(bundle)],
                 ["compare", str(profiled[1]), str(bundle)]):
        assert main(argv) != 0
        err = capsys.readouterr().err
        assert "Traceback" not in err and words in err


def test_a_bundle_missing_the_estimate_its_summary_names_fails_verification(
        profiled: tuple[Path, Path], tmp_path: Path) -> None:
    bundle = copy_bundle(profiled[1], tmp_path)
    (bundle / "cycle_estimate.json").unlink()
    rehash(bundle)  # the manifest no longer lists it either
    with pytest.raises(ResultsError, match=r"summary\.json names cycle_estimate\.json"):
        verify_bundle(bundle)


def test_calibrate_refuses_measured_layers_no_board_can_have(
        profiled: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    measured = copy_bundle(profiled[0], tmp_path / "measured")
    summary = json.loads((measured / "summary.json").read_text(encoding="utf-8"))
    summary["identity"] |= {"board": "apollo510_evb", "counter_units": "cycles"}
    first = summary["measurement"]["layers"][0]
    first["median"], first["samples"] = -400, [-400] * len(first["samples"])
    (measured / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    rehash(measured)
    written = tmp_path / "calibration.json"
    assert main(["calibrate", str(profiled[1]), str(measured), "-o", str(written)]) == 2
    err = capsys.readouterr().err
    assert "measured -400 cycles, which no board measures" in err and "Traceback" not in err
    assert not written.exists()


# energy: a law fitted on measured bundles, then applied to an emulated run's estimate (the
# loops engine moves no memory, so its law has cycles alone; tests/insight/test_estimate.py
# fits bytes per region on the selftest)
PER_CYCLE_UJ = 0.002


def _measured_with_energy(profiled: tuple[Path, Path], into: Path) -> tuple[Path, float]:
    """The estimated run relabelled as measured on the Apollo510 (its layers take the cycles
    the estimate says) with the energy the power pass would write, each layer's µJ by a known
    law of its estimated cycles; and the law's µJ for the whole inference."""
    from hpx_insight.energy_law import layer_features

    view = load_view(profiled[1])
    estimate = view.pass_documents["cycle_estimate.json"]
    features = layer_features(estimate, view.pass_documents["instruction_profile.json"])
    truth = {i: PER_CYCLE_UJ * f["cycles"] for i, f in features.items()}
    bundle = copy_bundle(profiled[1], into)
    summary = json.loads((bundle / "summary.json").read_text())
    for layer in summary["measurement"]["layers"]:
        cycles = round(features[layer["index"]]["cycles"])
        layer["median"], layer["samples"] = cycles, [cycles] * len(layer["samples"])
    summary["identity"] |= {"board": "apollo510_evb", "counter_units": "cycles"}
    del summary["instruction_profile"]  # a board's run has no instruction profile
    summary["energy"] = {"median_uj": sum(truth.values()), "layers": [
        {"index": i, "median_uj": uj} for i, uj in sorted(truth.items())]}
    (bundle / "summary.json").write_text(json.dumps(summary))
    for name in ("cycle_estimate.json", "instruction_profile.json"):
        (bundle / name).unlink()
    rehash(bundle)
    return bundle, sum(truth.values())


def test_calibrate_recovers_a_known_energy_law_and_the_estimate_uses_it(
        profiled: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from hpx_insight.calibrate import calibrate

    measured, whole_uj = _measured_with_energy(profiled, tmp_path / "m")
    law = calibrate([profiled[1], measured]).energy
    assert law is not None and law.held_out == "layer"  # one model: leave one layer out
    assert law.per == pytest.approx({"cycles": PER_CYCLE_UJ}, rel=1e-6)
    assert law.error is not None and law.error < 1e-6
    assert main(["calibrate", str(profiled[1]), str(measured), "--output-dir",
                 str(tmp_path / "fit")]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "energy: uJ per layer = 0.002 x cycles" in said
    assert "leave-one-layer-out error: median 0.0% per layer" in said
    code = main(["profile", str(KWS), "--engine", "loops", "--board", "qemu-m55",
                 "--iterations", "2", "--estimate-for", "apollo510_evb", "--calibration",
                 str(tmp_path / "fit" / "calibration.json"), "--output-dir",
                 str(tmp_path / "est")])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0 and "est. µJ" in out
    # the class calibration prices the layers' memory cycles (their code's fills from MRAM)
    # into per-class costs, which reproduce the measured cycles to a few in 10,000, not exactly
    said_uj = re.search(r"estimated energy on apollo510_evb: ([0-9.]+) µJ per inference", out)
    assert said_uj is not None and float(said_uj.group(1)) == pytest.approx(whole_uj, rel=1e-3)


def test_without_a_calibration_an_estimate_states_no_energy(
        tmp_path: Path, profiled: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
        ) -> None:
    estimate = load_view(profiled[1]).pass_documents["cycle_estimate.json"]
    assert estimate["energy"] == {"note": "no energy estimate: no calibration (hpx calibrate "
                                          "on bundles measured with --power)"}
    measured = _measured_with_energy(profiled, tmp_path / "m")[0]
    summary = json.loads((measured / "summary.json").read_text())
    del summary["energy"]
    (measured / "summary.json").write_text(json.dumps(summary))
    rehash(measured)
    assert main(["calibrate", str(profiled[1]), str(measured), "--output-dir",
                 str(tmp_path)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "energy: not fitted, the measured bundles have no energy" in said
