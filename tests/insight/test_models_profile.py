"""Instruction profiles of real models: the four MLPerf Tiny models with TFLite Micro (reference
and CMSIS-NN kernels) on both emulated boards, and the seed's ExecuTorch programs (arm provider)
on qemu-m55. Each layer's instructions equal the timed run's SysTick counts, to the instruction;
CMSIS-NN's convolutions are CMSIS-NN's own kernels."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from browser import CHROMIUM, load_page, page_dom
from hpx_insight.document import profile_document, shape_problem
from hpx_insight.profile import instruction_profile
from profiles import profile_run

from hpx_core.pipeline import ProfileOutcome

from .conftest import needs_tools

pytestmark = pytest.mark.e2e
REPO = Path(__file__).resolve().parents[2]
MLPERF = REPO / "examples/models/mlperf_tiny"
TIER1 = REPO / "tests/fixtures/executorch_tier1"
MODELS = ("kws_ref_model", "ad01_int8", "vww_96_int8", "pretrainedResnet_quant")
WORK = Path(tempfile.mkdtemp(prefix="hpx-insight-e2e-"))


def _agrees(outcome: ProfileOutcome) -> dict[str, object]:
    """The profile of the outcome's ELF, checked against the timed run's counts."""
    assert outcome.build is not None and outcome.measurement is not None
    board = outcome.board
    assert board is not None
    found = instruction_profile(outcome.build.elf, board, outcome.build.toolchain)
    timed = {layer.index: layer.counts for layer in outcome.measurement.layers}
    assert {layer.index: layer.work.per_pass for layer in found.layers} == timed
    assert found.whole.per_pass[-len(outcome.measurement.whole):] == outcome.measurement.whole
    document = profile_document(found)
    assert shape_problem(document) is None
    return document


@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
@pytest.mark.parametrize("backend", ["reference", "cmsis_nn"])
@pytest.mark.parametrize("model", MODELS)
def test_mlperf_tiny_layers_equal_systick(model: str, backend: str, board: str) -> None:
    needs_tools()
    outcome = profile_run(MLPERF / f"{model}.tflite", "tflm", board,
                          WORK / f"{model}-{backend}-{board}", backend=backend, iterations=1)
    document = _agrees(outcome)
    if backend == "cmsis_nn":  # ad01 has no convolution: its fully connected layers then
        kernels = [layer for layer in document["layers"]
                   if "CONV" in layer["op"] or "FULLY_CONNECTED" in layer["op"]]
        assert kernels
        for layer in kernels:
            names = [f["name"] for f in layer["functions"]]
            assert any(name.startswith("arm_") for name in names[:3]), names


@pytest.mark.parametrize("program", ["tier1_arm", "tier1mean_arm"])
def test_executorch_programs_layers_equal_systick(program: str) -> None:
    needs_tools()
    outcome = profile_run(TIER1 / f"{program}.pte", "executorch", "qemu-m55",
                          WORK / program, backend="arm")
    document = _agrees(outcome)
    convolutions = [layer for layer in document["layers"] if "conv" in layer["op"]]
    for layer in convolutions:
        assert layer["functions"][0]["name"].startswith("arm_")
    # the portable float kernels build as the measured reference's did (-O3 -ffast-math):
    # GCC vectorizes leaky_relu with MVE, which it leaves scalar at -Os
    for layer in document["layers"]:
        if "leaky_relu" in layer["op"]:
            classes = layer["classes"]
            assert classes["vector_load"] and classes["vector_store"]
            assert classes["float"] < classes["vector"]


def teardown_module() -> None:
    shutil.rmtree(WORK, ignore_errors=True)


@pytest.mark.parametrize("silicon", ["apollo510_evb", "apollo330mP_evb"])
def test_what_if_placements_price_weights_and_arena_where_the_board_holds_them(
        silicon: str) -> None:
    """KWS with CMSIS-NN estimated for an Apollo5 board: every plan of its model and arena the
    board holds is priced, the default marked; the arena in shared SRAM and the model in MRAM
    cost more than in TCM (their misses, at the fitted costs); the table is in the bundle, the
    console and the page."""
    from hpx_core.config.validate import overrides
    from hpx_core.pipeline import profile
    from hpx_core.report.html import bundle_report
    from hpx_core.results.view import load_view

    needs_tools()
    settings = overrides("test", engine__type="tflm", engine__backend="cmsis_nn",
                         target__board="qemu-m55", profiling__iterations=1,
                         profiling__estimate_for=silicon,
                         output__dir=str(WORK / f"whatif-{silicon}" / "results"))
    outcome = profile(MLPERF / "kws_ref_model.tflite", None, settings)
    assert outcome.bundle is not None
    view = load_view(outcome.bundle)
    estimate = view.pass_documents["cycle_estimate.json"]
    plans = estimate["placements"]
    assert sum(p["default"] for p in plans) == 1
    by_plan = {(p["buffers"]["hpx_tflm_model"], p["buffers"]["hpx_tflm_arena"]): p
               for p in plans}
    assert {("MCU_TCM", "MCU_TCM"), ("MCU_TCM", "SHARED_SRAM"),
            ("MCU_MRAM", "MCU_TCM")} <= set(by_plan)
    in_tcm = by_plan[("MCU_TCM", "MCU_TCM")]["estimated_cycles"]
    assert by_plan[("MCU_TCM", "SHARED_SRAM")]["estimated_cycles"] > in_tcm
    # the model's fills from MRAM, at the least Ambiq's ranking allows (shared SRAM's cost)
    assert by_plan[("MCU_MRAM", "MCU_TCM")]["estimated_cycles"] > in_tcm
    assert "MCU_MRAM priced at its least" in estimate["best_placement"]
    default = next(p for p in plans if p["default"])
    assert default["estimated_cycles"] == estimate["whole"]["estimated_cycles"]
    assert estimate["best_placement"].startswith(("best placement on", "placement on"))
    page = bundle_report(view)
    assert "What if the buffers were placed elsewhere" in page
    assert "SHARED_SRAM" in page
    if CHROMIUM is not None:  # the table as a browser builds it: every plan a row, in order
        html = WORK / f"whatif-{silicon}.html"
        html.write_text(page, encoding="utf-8")
        console, variance = load_page(html, WORK)
        assert console == [] and variance > 0
        dom = page_dom(html, WORK)
        start = dom.index('class="placements"')
        table = dom[start:dom.index("</table>", start)]
        assert table.count("<tr>") == len(plans) + 1  # the head and a row per priced plan
        cheapest = min(p["estimated_cycles"] for p in plans)
        assert f"{cheapest:,.0f}" in table.split("</tr>")[1]


@pytest.mark.parametrize("silicon", ["apollo510_evb", "apollo330mP_evb"])
def test_a_measured_memory_calibration_prices_weights_in_mram_above_tcm(
        silicon: str, tmp_path: Path) -> None:
    """With the line costs hpx calibrate --memory measured (here: a file of its schema with
    known costs), weights in MRAM cost their misses: the plan with the model in MRAM is
    dearer than the same plan with it in TCM by the MRAM fill cost times its misses, and the
    estimate names where each cost came from."""
    from hpx_core.config.validate import overrides
    from hpx_core.pipeline import profile
    from hpx_core.report.html import bundle_report
    from hpx_core.results.view import load_view

    needs_tools()
    fill = 20.0
    calibration = tmp_path / "memory_calibration.json"
    calibration.write_text(json.dumps({
        "schema": "hpx.memory-calibration/1", "board": silicon, "clock": "lp",
        "regions": {"MCU_MRAM": {"read_fill": fill, "write_miss": None},
                    "SHARED_SRAM": {"read_fill": 9.5, "write_miss": 3.68}}}))
    settings = overrides("test", engine__type="tflm", engine__backend="cmsis_nn",
                         target__board="qemu-m55", profiling__iterations=1,
                         profiling__estimate_for=silicon,
                         profiling__memory_calibration=str(calibration),
                         output__dir=str(tmp_path / "results"))
    outcome = profile(MLPERF / "kws_ref_model.tflite", None, settings)
    assert outcome.bundle is not None
    view = load_view(outcome.bundle)
    estimate = view.pass_documents["cycle_estimate.json"]
    assert estimate["memory_costs"]["MCU_MRAM"]["read_fill"] == fill
    assert "hpx calibrate --memory" in estimate["memory_costs"]["MCU_MRAM"]["source"]
    by_plan = {(p["buffers"]["hpx_tflm_model"], p["buffers"]["hpx_tflm_arena"]): p
               for p in estimate["placements"]}
    in_mram, in_tcm = by_plan[("MCU_MRAM", "MCU_TCM")], by_plan[("MCU_TCM", "MCU_TCM")]
    assert in_mram["estimated_cycles"] > in_tcm["estimated_cycles"]
    assert in_mram["default"]  # the board's own plan keeps the model in MRAM
    whole = estimate["whole"]  # its MRAM fills (data and code) are priced at the measured cost
    mram = whole["memory_events"]["MCU_MRAM read_fill"]
    assert mram > 0
    assert whole["memory_cycles"] == pytest.approx(
        fill * mram + sum(n * (9.5 if "read" in k else 3.68)
                          for k, n in whole["memory_events"].items()
                          if k.startswith("SHARED_SRAM")), abs=1)
    page = bundle_report(view)  # the costs and their source on the bundle's page
    costs = page[page.index('class="memory-costs"'):]
    costs = costs[:costs.index("</table>")]
    assert "<td>MCU_MRAM</td><td class=\"n\">20.00</td>" in costs
    assert f"measured on {silicon} at the lp clock by hpx calibrate --memory" in costs
