"""`hpx compare` on two matrix folders: a policy per cell, cells in one matrix only listed."""

from __future__ import annotations

from pathlib import Path

import pytest
from junitparser import JUnitXml
from matrix_folders import slower_matrix, smoke_matrix

from hpx_core.cli import main
from hpx_core.matrix.compare import compare_matrices

pytestmark = pytest.mark.emulated


def test_a_matrix_against_itself_passes_every_measured_cell() -> None:
    folder = smoke_matrix().folder
    result = compare_matrices(folder, folder)
    verdicts = {c.id: c.verdict for c in result.cells}
    assert verdicts.pop("kws--loops-plain-broken--qemu-m55") == "not measured"
    assert set(verdicts.values()) == {"passed"} and len(verdicts) == 5 and result.passed


def test_a_slower_cell_fails_its_policy(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    base, candidate = smoke_matrix().folder, slower_matrix().folder
    junit = tmp_path / "cmp.xml"
    code = main(["compare", str(base), str(candidate), "--junit", str(junit),
                 "--output-dir", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 1 and "1 of 6 cells regressed" in err
    assert "kws--loops-plain-std--qemu-m55" in out and "REGRESSED" in out
    assert "not in the candidate matrix" in out
    xml = JUnitXml.fromfile(str(junit))
    assert xml.failures >= 1
    assert (tmp_path / "out" / "matrix_comparison.json").is_file()
    result = compare_matrices(base, candidate)
    regressed = next(c for c in result.cells if c.verdict == "regressed")
    whole = next(t for t in regressed.comparison.totals  # type: ignore[union-attr]
                 if t.name == "whole inference")
    assert whole.candidate is not None and whole.base is not None
    assert whole.candidate > whole.base
