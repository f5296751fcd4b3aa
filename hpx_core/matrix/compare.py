"""Two matrix folders, compared cell by cell: each pair of run bundles through ``hpx compare``'s
comparison and a policy (a policy file, or each pair's default: zero tolerance on the emulated
boards, the measured spread on silicon). A cell in only one matrix, or without a complete run
on either side, is listed and fails only when the policy says missing numbers fail.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import attrs
from junitparser import JUnitXml, Skipped, TestCase, TestSuite

from hpx_core.atomic import write_atomic
from hpx_core.compare import Comparison, PolicyOutcome, compare, load_view
from hpx_core.compare.junit import junit_xml, write_junit_file
from hpx_core.compare.policy import Policy, apply_policy, default_policy, load_policy
from hpx_core.matrix.record import MatrixView, load_matrix

CellVerdict = Literal["passed", "regressed", "missing", "not measured"]


@attrs.frozen
class CellComparison:
    """One cell of both matrices: the comparison and the policy's verdict, or why there is none."""

    id: str
    verdict: CellVerdict
    comparison: Comparison | None = None
    outcome: PolicyOutcome | None = None
    reason: str | None = None


@attrs.frozen
class MatrixComparison:
    """Every cell either matrix has, in the base's order (then the candidate's new cells)."""

    base: MatrixView
    candidate: MatrixView
    cells: tuple[CellComparison, ...]

    @property
    def passed(self) -> bool:
        return not any(c.verdict == "regressed" for c in self.cells)


def compare_matrices(base: Path, candidate: Path, policy: str | None = None
                     ) -> MatrixComparison:
    """Compare every cell the two matrix folders share, applying ``policy`` to each."""
    left, right = load_matrix(base), load_matrix(candidate)
    chosen = None if policy in (None, "default") else load_policy(Path(str(policy)))
    ids = list(dict.fromkeys([c.id for c in left.cells] + [c.id for c in right.cells]))
    return MatrixComparison(left, right, tuple(_cell(left, right, i, chosen) for i in ids))


def _cell(left: MatrixView, right: MatrixView, cell_id: str,
          policy: Policy | None) -> CellComparison:
    a = next((c for c in left.cells if c.id == cell_id), None)
    b = next((c for c in right.cells if c.id == cell_id), None)
    if a is None or b is None:
        side = "base" if a is None else "candidate"
        return CellComparison(cell_id, "missing", reason=f"not in the {side} matrix")
    if a.status != "complete" or b.status != "complete" or not a.bundle or not b.bundle:
        return CellComparison(cell_id, "not measured",
                              reason=f"base {a.status}, candidate {b.status}")
    comparison = compare(load_view(left.folder / a.bundle), load_view(right.folder / b.bundle))
    outcome = apply_policy(comparison, policy or default_policy(comparison))
    return CellComparison(cell_id, "passed" if outcome.passed else "regressed", comparison,
                          outcome)


def write_matrix_junit(path: Path, result: MatrixComparison) -> Path:
    """A suite per compared cell (a case per check), one for the cells not compared."""
    xml = JUnitXml("hpx compare (matrix)")
    others = TestSuite("cells not compared")
    for cell in result.cells:
        if cell.comparison is not None and cell.outcome is not None:
            for suite in junit_xml(cell.comparison, cell.outcome):
                suite.name = f"{cell.id}: {suite.name}"
                xml.add_testsuite(suite)
            continue
        case = TestCase(cell.id, classname="hpx.compare.matrix")
        case.result = [Skipped(cell.reason or cell.verdict)]
        others.add_testcase(case)
    if len(others):
        xml.add_testsuite(others)
    return write_junit_file(path, xml)


def write_matrix_comparison(folder: Path, result: MatrixComparison) -> Path:
    """``matrix_comparison.json``: every cell's verdict and its totals."""
    cells = []
    for cell in result.cells:
        totals = ({t.name: {"base": t.base, "candidate": t.candidate, "delta": t.delta}
                   for t in cell.comparison.totals} if cell.comparison else {})
        failures = [c.message for c in cell.outcome.failures] if cell.outcome else []
        cells.append({"id": cell.id, "verdict": cell.verdict, "reason": cell.reason,
                      "totals": totals, "failed_checks": failures})
    data = {"base": str(result.base.folder), "candidate": str(result.candidate.folder),
            "passed": result.passed, "cells": cells}
    return write_atomic(folder / "matrix_comparison.json", json.dumps(data, indent=2) + "\n")
