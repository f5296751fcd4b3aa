"""The matrix report: models by configurations as a heat map of the whole-inference counts,
with each cell's sizes beside its speed and a link to its bundle's own report.

A cell's colour is its count relative to the fastest configuration of the same model (green:
fastest, red: the slowest of the row), so a row reads as "which engine and board is fastest for
this model". Like every hpx report the page is self-contained: no script, no network.
"""

from __future__ import annotations

import math
from pathlib import Path

import attrs

from hpx_core.matrix.record import CellRow, MatrixView
from hpx_core.report.html import render_page

BUNDLE_REPORT = "report.html"


@attrs.frozen
class HeatCell:
    """What one square of the heat map shows."""

    row: CellRow
    ratio: float | None  # count / the row's smallest count (same units only)
    colour: str
    link: str | None


def _colour(ratio: float | None, worst: float) -> str:
    if ratio is None:
        return "#eeeeee"
    spread = math.log(worst) if worst > 1 else 1.0
    hue = 120.0 * (1.0 - min(1.0, math.log(ratio) / spread))
    return f"hsl({hue:.0f}, 65%, 82%)"


def _link(view: MatrixView, cell: CellRow) -> str | None:
    page = view.folder / "cells" / cell.id / BUNDLE_REPORT
    if page.is_file():
        return page.relative_to(view.folder).as_posix()
    return cell.bundle


def heat_rows(view: MatrixView) -> list[tuple[str, list[HeatCell | None]]]:
    """Per model, one square per configuration (None where the matrix has no such cell)."""
    rows = []
    for model in view.models:
        cells = [view.cell(model, c) for c in view.configurations]
        counts = [c.numbers.whole for c in cells if c and c.numbers and c.numbers.whole]
        fastest, slowest = (min(counts), max(counts)) if counts else (0, 0)
        worst = slowest / fastest if fastest else 1.0
        squares: list[HeatCell | None] = []
        for cell in cells:
            if cell is None:
                squares.append(None)
                continue
            whole = cell.numbers.whole if cell.numbers else None
            ratio = whole / fastest if whole and fastest else None
            squares.append(HeatCell(cell, ratio, _colour(ratio, worst), _link(view, cell)))
        rows.append((model, squares))
    return rows


def matrix_report(view: MatrixView) -> str:
    """The HTML page of a matrix folder."""
    return render_page(
        "matrix.html.j2", view=view, rows=heat_rows(view), counts=sorted(view.counts().items()),
        problems=[c for c in view.cells if c.status not in ("complete", "built")],
    )


def report_path(view: MatrixView) -> Path:
    return view.folder / "report.html"
