"""A cell's numbers read back from its real bundle: the memory the device used goes into
matrix.csv and the matrix report beside the counts and sizes."""

from __future__ import annotations

import csv
import io

import pytest
from matrix_folders import ARENAS, arena_matrix

from hpx_core.compare import load_view
from hpx_core.matrix.numbers import read_numbers

pytestmark = pytest.mark.emulated


def test_each_cell_carries_its_stack_and_arena() -> None:
    result = arena_matrix()
    rows = {r["config"]: r for r in csv.DictReader(
        io.StringIO((result.folder / "matrix.csv").read_text()))}
    html = (result.folder / "report.html").read_text()
    assert "<th>stack B</th><th>arena B</th>" in html
    for cell in result.cells:
        assert cell.bundle is not None and cell.numbers is not None
        use = load_view(cell.bundle).memory
        assert use is not None
        variant = cell.planned.cell.variant
        assert cell.numbers.arena == ARENAS[variant]  # what the engine's glue reported
        assert cell.numbers.stack == use.stack.used > 0
        assert read_numbers(cell.bundle) == cell.numbers
        row = rows[variant]
        assert (int(row["stack_bytes"]), int(row["arena_bytes"])) == (
            use.stack.used, ARENAS[variant])
        assert f"stack {use.stack.used:,} B, arena {ARENAS[variant]:,} B" in html


def test_a_cell_without_an_arena_leaves_it_empty() -> None:
    from matrix_folders import smoke_matrix

    cell = smoke_matrix().with_status("complete")[0]
    assert cell.numbers is not None and cell.numbers.arena is None
    assert cell.numbers.stack is not None and cell.numbers.stack > 0
