"""A matrix whose profile section names a data set validates every emulated cell: the
validation bundle beside the profile's, its figures as columns of matrix.csv, and a resumed
matrix keeps them without running anything again."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from hpx_core import api

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
REPO = Path(__file__).resolve().parents[2]
MATRIX = """hpx_matrix: 1
name: validated
models: [{kws}]
engines:
  - type: tflm
    backends: [reference, cmsis_nn]
boards: [qemu-m55]
profile:
  validation: {{data: {data}, limit: 40}}
"""


def test_every_cell_is_validated_and_its_figures_are_columns(tmp_path: Path) -> None:
    spec = tmp_path / "validated.yaml"
    spec.write_text(MATRIX.format(
        kws=REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite",
        data=REPO / "examples/datasets/kws/kws_espeak_200.npz"), encoding="utf-8")
    result = api.matrix(spec, tmp_path / "m")
    assert [c.status for c in result.cells] == ["complete", "complete"], [
        c.cause for c in result.cells]
    for cell in result.cells:
        assert cell.validation is not None and cell.validation.parent == cell.bundle.parent  # type: ignore[union-attr]
        assert cell.numbers is not None and cell.numbers.top1_agreement == 1.0
        assert cell.numbers.differing_share == 0.0
    reference, cmsis = (c.numbers for c in result.cells)
    assert reference is not None and cmsis is not None
    assert reference.accuracy_top1 == cmsis.accuracy_top1 is not None  # both exact to the host
    rows = list(csv.DictReader((result.folder / "matrix.csv").open(encoding="utf-8")))
    assert {r["top1_agreement"] for r in rows} == {"1.0"}
    assert all(r["validation"].endswith("-validation") for r in rows)
    again = api.matrix(spec, tmp_path / "m", resume=True)
    assert all(c.resumed for c in again.cells)
    assert [c.numbers for c in again.cells] == [c.numbers for c in result.cells]
