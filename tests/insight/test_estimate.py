"""Cycle estimates from the selftest's instruction profile: the model's documented rules on
loops of known shape, the boards it covers and refuses, and a calibration that recovers known
per-class costs from an emulated run relabelled as measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hpx_insight.calibrate import calibrate, load_calibration
from hpx_insight.cycles.cortex_m4 import REFILL
from hpx_insight.cycles.cortex_m55 import MISPREDICT
from hpx_insight.cycles.estimate import (
    FILE_NAME,
    Estimate,
    calibrated,
    estimate,
    estimate_document,
)
from hpx_insight.profile import InstructionProfile

from hpx_core.boards import get_board
from hpx_core.cli import main
from hpx_core.errors import UsageError
from hpx_core.results.bundle import dump_json, write_folder
from hpx_core.selftest.run import SelftestReport

pytestmark = pytest.mark.emulated
TARGETS = {"qemu-m55": ("apollo510_evb", "apollo330mP_evb"), "qemu-m4": ("apollo4p_evb",)}


def _by_name(result: Estimate) -> dict[str, float]:
    return {layer.name: layer.cycles for layer in result.layers}


def test_loops_cost_what_the_core_documents(selftest_profile: InstructionProfile) -> None:
    board = selftest_profile.board.name
    cycles = _by_name(estimate(selftest_profile, get_board(TARGETS[board][0])))
    # the same subs/bne loop at two lengths: the difference is whole iterations
    per_iteration = (cycles["long"] - cycles["short"]) / (12_000_000 - 1_000)
    if board == "qemu-m55":  # subs and bne dual-issue; a taken branch refills the pipeline
        assert per_iteration == pytest.approx(1 + MISPREDICT)
        # vadd.i32 q0 holds the integer pipe for its two beats, subs/bne issue in the second
        assert cycles["vector"] / 100_000 == pytest.approx(2 + MISPREDICT, rel=1e-3)
    else:  # ldr 2, str 1 (write buffer), subs 1, bne 1 + P
        assert per_iteration == pytest.approx(2 + REFILL)
        assert cycles["memory"] / 50_000 == pytest.approx(2 + 1 + 1 + 1 + REFILL, rel=1e-3)


def test_each_board_of_the_core_is_estimated(selftest_profile: InstructionProfile) -> None:
    for target in TARGETS[selftest_profile.board.name]:
        result = estimate(selftest_profile, get_board(target))
        document = estimate_document(result)
        assert document["board"] == target and document["metric"] == "estimated_cycles"
        assert document["model"] and document["unmodelled"]
        nops = next(layer for layer in document["layers"] if layer["name"] == "nops")
        assert nops["estimated_ms"] == pytest.approx(
            nops["estimated_cycles"] / get_board(target).clock_hz * 1000, rel=1e-3)


def test_boards_the_model_does_not_cover_are_refused(selftest_profile: InstructionProfile
                                                     ) -> None:
    if selftest_profile.board.core == "cortex-m4":  # the Apollo3 Blue Plus has one too
        with pytest.raises(UsageError, match="no memory system for apollo3p_evb") as caught:
            estimate(selftest_profile, get_board("apollo3p_evb"))
        assert "apollo4p_evb" in caught.value.hint
    other = "apollo4p_evb" if selftest_profile.board.core == "cortex-m55" else "apollo510_evb"
    with pytest.raises(UsageError, match="needs the silicon's own instructions"):
        estimate(selftest_profile, get_board(other))
    with pytest.raises(UsageError, match="emulated board"):
        estimate(selftest_profile, selftest_profile.board)


KNOWN = {"other": 1.0, "branch_taken": 4.0, "branch_not_taken": 1.0, "load": 2.0, "store": 1.0,
         "float": 3.0, "vector": 2.5}


def _bundle_with(source: Path, folder: Path, name: str, changes: dict[str, bytes]) -> Path:
    files = {p.name: p.read_bytes() for p in source.iterdir() if p.name != "manifest.json"}
    return write_folder(folder, name, files | changes, "complete")


def test_calibration_recovers_known_costs(selftest_run: SelftestReport,
                                          selftest_profile: InstructionProfile,
                                          tmp_path: Path) -> None:
    target = TARGETS[selftest_run.board][0]
    result = estimate(selftest_profile, get_board(target))
    source = selftest_run.runs[0].bundle
    estimated = _bundle_with(source, tmp_path, "estimated", {
        FILE_NAME: dump_json(estimate_document(result))})
    summary = json.loads((source / "summary.json").read_text(encoding="utf-8"))
    truth = {layer.index: sum(KNOWN.get(k, 0.0) * n for k, n in layer.counts.items())
             for layer in result.layers}
    for layer in summary["measurement"]["layers"]:  # the emulated run, relabelled as measured
        layer["median"] = round(truth[layer["index"]])
        layer["samples"] = [layer["median"]] * len(layer["samples"])
    summary["identity"] |= {"board": target, "counter_units": "cycles"}
    measured = _bundle_with(source, tmp_path, "measured", {"summary.json": dump_json(summary)})
    fitted = calibrate([estimated, measured])
    assert fitted.board == target and fitted.lomo_layer_error is None  # one model only
    for index, cycles in truth.items():
        counts = next(s.counts for s in result.layers if s.index == index)
        assert fitted.predict(counts) == pytest.approx(round(cycles), abs=0.5)
    for name in ("float", "branch_taken", "other"):
        assert fitted.costs[name] == pytest.approx(KNOWN[name], abs=1e-3)
    assert fitted.costs["load"] + fitted.costs["store"] == pytest.approx(3.0, abs=1e-3)
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(fitted.document()), encoding="utf-8")
    costs = load_calibration(path, target)
    again = calibrated(result, costs, path.name)
    assert again.calibration == path.name
    assert _by_name(again)["memory"] == pytest.approx(
        truth[next(s.index for s in result.layers if s.name == "memory")], abs=0.5)
    with pytest.raises(UsageError, match="calibrates"):
        load_calibration(path, "apollo3p_evb")
    assert main(["calibrate", str(estimated), str(measured), "--output-dir",
                 str(tmp_path / "fit")]) == 0
    assert load_calibration(tmp_path / "fit" / "calibration.json", target) == pytest.approx(costs)
    written = tmp_path / "cli-calibration.json"  # the earlier spelling names the file itself
    assert main(["calibrate", str(estimated), str(measured), "-o", str(written)]) == 0
    assert load_calibration(written, target) == pytest.approx(costs)
    assert main(["calibrate", str(estimated), str(measured), "-o", str(written),
                 "--output-dir", str(tmp_path)]) == 2  # two places: a usage error
    assert main(["calibrate", str(estimated)]) == 2  # no measured bundle: a usage error


def test_calibration_recovers_an_energy_law_of_cycles_and_bytes_per_region(
        selftest_run: SelftestReport, selftest_profile: InstructionProfile,
        tmp_path: Path) -> None:
    from hpx_insight.document import profile_document
    from hpx_insight.energy_law import layer_features

    target = TARGETS[selftest_run.board][0]
    document = estimate_document(estimate(selftest_profile, get_board(target)))
    profile = profile_document(selftest_profile)
    source = selftest_run.runs[0].bundle
    estimated = _bundle_with(source, tmp_path, "estimated", {
        FILE_NAME: dump_json(document), "instruction_profile.json": dump_json(profile)})
    features = layer_features(document, profile)
    (region,) = {n for f in features.values() for n, v in f.items() if n.startswith("bytes.")
                 and v}  # the memory loop's one region
    law = {"cycles": 0.0015, region: 0.0004}  # µJ per cycle, per byte moved there
    truth = {i: sum(c * f.get(n, 0.0) for n, c in law.items()) for i, f in features.items()}
    summary = json.loads((source / "summary.json").read_text(encoding="utf-8"))
    for layer in summary["measurement"]["layers"]:
        layer["median"] = round(features[layer["index"]]["cycles"])
        layer["samples"] = [layer["median"]] * len(layer["samples"])
    summary["identity"] |= {"board": target, "counter_units": "cycles"}
    summary["energy"] = {"median_uj": sum(truth.values()), "layers": [
        {"index": i, "median_uj": uj} for i, uj in sorted(truth.items())]}
    measured = _bundle_with(source, tmp_path, "measured", {"summary.json": dump_json(summary)})
    fitted = calibrate([estimated, measured]).energy
    assert fitted is not None and fitted.per == pytest.approx(law, rel=1e-6)
    assert fitted.error is not None and fitted.error < 1e-6 and fitted.held_out == "layer"
