"""A real matrix run (loops test engine, real toolchain and QEMU): every outcome recorded.

The smoke matrix has five cells that complete, one whose build fails (recorded with its cause
while the others go on) and two cells pruned by license; its counts must be the ones the loops
engine's code implies and the ones a single profile of the cell gives.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from junitparser import JUnitXml
from loops_engine import loops_registry
from matrix_folders import KWS, SLOWER, private_cache, run_spec, smoke_matrix

from hpx_core import pipeline
from hpx_core.matrix import load_matrix
from hpx_core.reading import load_model
from hpx_core.selftest.layers import expected_whole

pytestmark = pytest.mark.emulated


def _expected(model: Path, backend: str) -> tuple[int, list[int]]:
    from hpx_loops_engine.plugin import LoopsConfig, loop_layers

    layers = loop_layers(load_model(model), backend, LoopsConfig())
    return expected_whole(layers), [layer.expected for layer in layers]


def test_every_cell_is_recorded_with_its_outcome() -> None:
    result = smoke_matrix()
    status = {c.id: c.status for c in result.cells}
    assert status == {
        "kws--loops-plain-std--qemu-m55": "complete", "kws--loops-nops-std--qemu-m55": "complete",
        "ad01--loops-plain-std--qemu-m55": "complete", "ad01--loops-nops-std--qemu-m55":
        "complete", "kws--loops-plain-std--qemu-m4": "complete",
        "kws--loops-plain-broken--qemu-m55": "failed",
    }
    broken = next(c for c in result.cells if c.status == "failed")
    assert broken.cause and "firmware build failed" in broken.cause
    assert "the loops engine was asked to fail its build" in broken.cause
    assert [p.cell.id for p in result.plan.pruned] == ["kws--helia-rt-helia--qemu-m55",
                                                       "ad01--helia-rt-helia--qemu-m55"]
    assert not result.passed and not result.interrupted


def test_counts_are_the_loops_the_engine_compiled() -> None:
    for cell in smoke_matrix().with_status("complete"):
        whole, layers = _expected(cell.planned.cell.model.path, str(cell.planned.cell.backend))
        assert cell.numbers is not None and cell.numbers.whole == whole, cell.id
        assert cell.numbers.layers == len(layers)
        view = json.loads((cell.bundle / "summary.json").read_text())  # type: ignore[operator]
        medians = [layer["median"] for layer in view["measurement"]["layers"]]
        assert all(abs(m - e) <= 1 for m, e in zip(medians, layers, strict=True)), cell.id


def test_a_cell_equals_a_single_profile_of_it(tmp_path: Path) -> None:
    cell = next(c for c in smoke_matrix().cells if c.id == "ad01--loops-nops-std--qemu-m55")
    overrides = {k: v for k, v in cell.planned.overrides.items()
                 if k not in ("output.dir", "build.work_dir")}
    overrides["output.dir"] = (str(tmp_path / "single"), "test")
    with private_cache(tmp_path / "cache"):
        single = pipeline.profile(None, None, overrides, loops_registry())
    assert single.measurement is not None and cell.numbers is not None
    assert single.measurement.whole_median == cell.numbers.whole
    assert single.measurement.layer_sum == cell.numbers.layer_sum


def test_each_engine_library_is_built_once() -> None:
    built: dict[str, int] = {}
    for cell in smoke_matrix().with_status("complete"):
        for library in cell.libraries:
            built[library["key"]] = built.get(library["key"], 0) + bool(library["built"])
    assert len(built) == 3 and set(built.values()) == {1}  # plain and nops on m55, plain on m4


def test_the_folder_holds_json_csv_junit_report_and_no_temporary_file() -> None:
    result = smoke_matrix()
    view = load_matrix(result.folder)
    assert [c.id for c in view.cells] == [c.id for c in result.cells]
    assert len(view.pruned) == 2 and "Ambiq" in view.pruned[0].reason
    rows = list(csv.DictReader(io.StringIO((result.folder / "matrix.csv").read_text())))
    assert len(rows) == 6 and {r["status"] for r in rows} == {"complete", "failed"}
    complete = next(r for r in rows if r["cell"] == "kws--loops-plain-std--qemu-m55")
    assert int(complete["whole_inference"]) == _expected(
        smoke_matrix().cells[0].planned.cell.model.path, "plain")[0]
    assert int(complete["flash_bytes"]) > 0 and int(complete["ram_bytes"]) > 0
    junit = JUnitXml.fromfile(str(result.folder / "junit.xml"))
    assert junit.tests == 6 and junit.failures == 1 and junit.errors == 0
    assert (result.folder / "report.html").is_file()
    assert (result.folder / "cells" / complete["cell"] / "report.html").is_file()
    leftovers = [p for p in result.folder.rglob(".*") if p.name != ".matrix.lock"]
    assert leftovers == []


WRONG = f"""hpx_matrix: 1
name: loops-wrong
models:
  - {{path: {KWS}, label: kws}}
engines:
  - type: loops
    backends: [plain]
    configs:
      right: {{reference_output: 8}}  # warm-up, 2 x 3 iterations, the memory pass
      wrong: {{reference_output: 10}}
boards: [qemu-m55]
profile:
  profiling: {{iterations: 3, warmup: 1}}
"""


def test_a_cell_whose_outputs_differ_from_the_host_fails() -> None:
    result = run_spec("wrong", WRONG)
    status = {c.id: (c.status, c.cause) for c in result.cells}
    assert status["kws--loops-plain-right--qemu-m55"] == ("complete", None)
    failed, cause = status["kws--loops-plain-wrong--qemu-m55"]
    assert failed == "failed" and cause is not None and "OUTPUTS DIFFER" in cause
    wrong = next(c for c in result.cells if c.status == "failed")
    assert wrong.bundle is not None and wrong.numbers is not None  # the bundle is kept
    assert wrong.numbers.validity == "invalid" and wrong.numbers.output_check == (
        "DIFFER: max abs diff 2")
    junit = (result.folder / "junit.xml").read_text()
    assert "OUTPUTS DIFFER" in junit and not result.passed
    rows = list(csv.DictReader(io.StringIO((result.folder / "matrix.csv").read_text())))
    assert {r["output_check"] for r in rows} == {"exact", "DIFFER: max abs diff 2"}


def test_a_page_that_cannot_be_drawn_loses_no_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each worker draws its cell's page as the cell ends; a defect there (here the report
    raising) leaves the cell measured and recorded, without its page."""
    import hpx_core.report

    def broken(view: object) -> str:
        raise RuntimeError("a defect in the report")

    monkeypatch.setattr(hpx_core.report, "bundle_report", broken)
    result = run_spec("pageless", SLOWER.replace("loops-slower", "loops-pageless"))
    (cell,) = result.cells
    assert cell.status == "complete" and cell.numbers is not None and cell.numbers.whole
    assert json.loads((cell.planned.folder / "cell.json").read_text())["status"] == "complete"
    assert not (cell.planned.folder / "report.html").exists()
    assert (result.folder / "report.html").is_file()  # the matrix's own page, without the link
