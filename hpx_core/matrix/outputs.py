"""The matrix as a spreadsheet (``matrix.csv``, one row per cell, with the board farm place
that ran it) and as CI test results
(``junit.xml``, one test case per cell: a failed cell fails with its cause)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from hpx_core.atomic import write_atomic
from hpx_core.compare.junit import write_junit_file
from hpx_core.matrix.record import CellRow, MatrixView

CSV_FILE = "matrix.csv"
JUNIT_FILE = "junit.xml"
COLUMNS = ("cell", "model", "engine", "backend", "config", "board", "toolchain", "place", "status",
           "units", "whole_inference", "layer_sum", "layers", "validity", "flash_bytes",
           "ram_bytes", "text_bytes", "data_bytes", "bss_bytes", "stack_bytes", "arena_bytes",
           "energy_uj", "output_check", "top1_agreement", "accuracy_top1", "differing_share",
           "cause", "bundle", "validation")


def _row(cell: CellRow) -> list[object]:
    n = cell.numbers
    where = cell.coordinates
    values: list[object] = [cell.id, where.get("model"), where.get("engine"),
                            where.get("backend"), where.get("config"), where.get("board"),
                            where.get("toolchain"), cell.place, cell.status]
    if n is None:
        values += [None] * 17
    else:
        values += [n.units, n.whole, n.layer_sum, n.layers, n.validity, n.flash, n.ram, n.text,
                   n.data, n.bss, n.stack, n.arena, n.energy_uj, n.output_check,
                   n.top1_agreement, n.accuracy_top1, n.differing_share]
    values += [cell.cause or cell.note, cell.bundle, cell.validation]
    return ["" if v is None else v for v in values]


def matrix_csv(view: MatrixView) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows(_row(cell) for cell in view.cells)
    return out.getvalue()


def matrix_junit(view: MatrixView) -> JUnitXml:
    """One suite; a test case per cell (pruned cells are listed as properties, not cases)."""
    suite = TestSuite(f"hpx matrix: {view.name}")
    for key, value in sorted(view.labels.items()):
        suite.add_property(f"label.{key}", str(value))
    for pruned in view.pruned:
        suite.add_property(f"pruned.{pruned.id}", pruned.reason)
    for cell in view.cells:
        case = TestCase(cell.id, classname=f"hpx.matrix.{cell.model}", time=cell.seconds)
        if cell.status == "failed":
            case.result = [Failure(cell.cause or "failed", "cell failed")]
        elif cell.status in ("interrupted", "not run"):
            case.result = [Error(cell.cause or cell.status, cell.status)]
        elif cell.numbers is None:
            case.result = [Skipped(f"{cell.status}: the bundle does not verify")]
        else:
            n = cell.numbers
            counted = (f"whole inference {n.whole:,} {n.units}" if n.whole is not None
                       else f"{cell.note or 'built'}: flash {n.flash} B, RAM {n.ram} B")
            where = f" on place {cell.place}" if cell.place else ""
            case.system_out = f"{cell.status}{where}: {counted}; bundle {cell.bundle}"
        suite.add_testcase(case)
    xml = JUnitXml("hpx matrix")
    xml.add_testsuite(suite)
    return xml


def write_tables(view: MatrixView) -> list[Path]:
    """``matrix.csv`` and ``junit.xml`` in the matrix folder (each written atomically)."""
    csv_path = write_atomic(view.folder / CSV_FILE, matrix_csv(view))
    return [csv_path, write_junit_file(view.folder / JUNIT_FILE, matrix_junit(view))]
