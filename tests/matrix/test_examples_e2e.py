"""The example matrices as they are (pinned TFLM sources, the shared engine cache).

emulated.yaml: 8 cells on qemu-m55, every output exact, KWS reference at its documented count.
mixed.yaml: 12 cells; helia-rt pruned on the QEMU boards with its license as the reason, the
Apollo510 cells stopped after a checked build with a build bundle each. In both, a cell's
numbers equal a single profile of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from junitparser import JUnitXml
from profiles import profile_run

from hpx_core import api
from hpx_core.results.build_bundle import read_build_bundle

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples/matrix"
MODELS = REPO / "examples/models/mlperf_tiny"
KWS_REFERENCE_QEMU_M55 = 41_919_066


def test_the_emulated_example(tmp_path: Path) -> None:
    result = api.matrix(EXAMPLES / "emulated.yaml", tmp_path / "m")
    assert [c.status for c in result.cells] == ["complete"] * 8, [c.cause for c in result.cells]
    numbers = {c.id: c.numbers for c in result.cells}
    assert all(n is not None and n.output_check == "exact" for n in numbers.values())
    assert numbers["kws--tflm-reference--qemu-m55"].whole == KWS_REFERENCE_QEMU_M55  # type: ignore[union-attr]
    single = profile_run(MODELS / "ad01_int8.tflite", "tflm", "qemu-m55", tmp_path / "single",
                         backend="cmsis_nn")
    assert single.measurement is not None
    assert single.measurement.whole_median == numbers["ad01--tflm-cmsis_nn--qemu-m55"].whole  # type: ignore[union-attr]
    assert JUnitXml.fromfile(str(result.folder / "junit.xml")).tests == 8


def test_the_mixed_example(tmp_path: Path) -> None:
    result = api.matrix(EXAMPLES / "mixed.yaml", tmp_path / "m")
    status = {c.id: c.status for c in result.cells}
    assert len(status) == 12, status
    apollo = {i: s for i, s in status.items() if i.endswith("apollo510_evb")}
    assert set(apollo.values()) == {"built"} and len(apollo) == 6
    assert {s for i, s in status.items() if i not in apollo} == {"complete"}
    for cell in result.with_status("built"):
        assert cell.note == "build only" and cell.bundle is not None
        built = read_build_bundle(cell.bundle)
        assert built.board == "apollo510_evb" and built.elf.is_file()
        assert all(c["passed"] for c in built.kernel_checks if c["fatal"])
    pruned = {p.cell.id: p.reason for p in result.plan.pruned}
    assert len(pruned) == 4 and all("Ambiq-manufactured" in r for r in pruned.values())
    assert all("qemu" in i and "helia-rt" in i for i in pruned)
    m4 = next(c for c in result.cells if c.id == "kws--tflm-reference--qemu-m4")
    single = profile_run(MODELS / "kws_ref_model.tflite", "tflm", "qemu-m4",
                         tmp_path / "single", backend="reference")
    assert single.measurement is not None and m4.numbers is not None
    assert single.measurement.whole_median == m4.numbers.whole
    assert JUnitXml.fromfile(str(result.folder / "junit.xml")).tests == 12
