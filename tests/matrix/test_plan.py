"""The plan: cells from the axes and rules, pruned by license and capability, fingerprinted."""

from __future__ import annotations

from pathlib import Path

import pytest
from loops_engine import loops_registry

from hpx_core.errors import ConfigError
from hpx_core.matrix import load_spec, plan_matrix
from hpx_core.plugins import default_registry

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples/matrix"
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
AD01 = REPO / "examples/models/mlperf_tiny/ad01_int8.tflite"


def _plan(path: Path, folder: Path, registry=None):  # type: ignore[no-untyped-def]
    registry = registry or default_registry()
    return plan_matrix(load_spec(path, registry), registry, folder)


def test_the_emulated_example_has_eight_cells(tmp_path: Path) -> None:
    plan = _plan(EXAMPLES / "emulated.yaml", tmp_path / "m")
    ids = [p.cell.id for p in plan.cells]
    assert len(ids) == 8 == len(set(ids)) and not plan.pruned
    assert ids[:2] == ["kws--tflm-reference--qemu-m55", "kws--tflm-cmsis_nn--qemu-m55"]
    assert len(plan.library_groups) == 2 and plan.work()["emulated runs"] == 8
    assert len({p.fingerprint for p in plan.cells}) == 8


def test_the_mixed_example_prunes_the_licensed_engine_on_qemu(tmp_path: Path) -> None:
    plan = _plan(EXAMPLES / "mixed.yaml", tmp_path / "m")
    assert len(plan.cells) == 12 and plan.excluded == 2
    assert {p.cell.board for p in plan.cells if p.cell.build_only} == {"apollo510_evb"}
    assert sum(p.cell.build_only for p in plan.cells) == 6
    pruned = {p.cell.id: p.reason for p in plan.pruned}
    assert sorted(pruned) == ["ad01--helia-rt-helia--qemu-m4", "ad01--helia-rt-helia--qemu-m55",
                              "kws--helia-rt-helia--qemu-m4", "kws--helia-rt-helia--qemu-m55"]
    assert all("only on Ambiq-manufactured CPUs" in r for r in pruned.values())
    helia = [p for p in plan.cells if p.cell.engine == "helia-rt"]
    assert [p.cell.board for p in helia] == ["apollo510_evb", "apollo510_evb"]


def _loops(tmp_path: Path, extra: str = "", iterations: int = 3) -> Path:
    path = tmp_path / "loops.yaml"
    path.write_text(f"""hpx_matrix: 1
models: [{KWS}, {AD01}]
engines:
  - type: loops
    backends: [plain, nops]
    configs:
      small: {{scale: 10}}
      big: {{scale: 1000}}
boards: [qemu-m55, qemu-m4]
profile:
  profiling: {{iterations: {iterations}}}
{extra}""")
    return path


def test_rules_and_fingerprints(tmp_path: Path) -> None:
    rules = """exclude:
  - {board: qemu-m4}
include:
  - {model: ad01_int8, engine: loops, backend: nops, config: big, board: qemu-m4}
"""
    plan = _plan(_loops(tmp_path, rules), tmp_path / "m", loops_registry())
    ids = [p.cell.id for p in plan.cells]
    assert len(ids) == 2 * 2 * 2 + 1 and plan.excluded == 8
    assert ids[-1] == "ad01_int8--loops-nops-big--qemu-m4"
    cell = plan.cells[0]
    assert cell.overrides["engine.config.scale"][0] == 10
    assert cell.overrides["engine.config.scale"][1].endswith("loops.yaml:7:22")
    assert cell.folder == tmp_path / "m" / "cells" / cell.cell.id
    again = _plan(_loops(tmp_path, rules), tmp_path / "elsewhere", loops_registry())
    assert [p.fingerprint for p in again.cells] == [p.fingerprint for p in plan.cells]
    more = _plan(_loops(tmp_path, rules, iterations=4), tmp_path / "m", loops_registry())
    assert not {p.fingerprint for p in more.cells} & {p.fingerprint for p in plan.cells}


def test_an_engine_config_typo_stops_the_plan_at_its_variant(tmp_path: Path) -> None:
    path = _loops(tmp_path)
    path.write_text(path.read_text().replace("{scale: 1000}", "{scael: 1000}"))
    with pytest.raises(ConfigError) as caught:
        _plan(path, tmp_path / "m", loops_registry())
    assert "scael" in caught.value.message and "loops.yaml:8:12" in caught.value.message


def test_pmu_events_prune_emulated_cells(tmp_path: Path) -> None:
    path = _loops(tmp_path)
    path.write_text(path.read_text().replace(
        "profiling: {iterations: 3}", "profiling: {iterations: 3, counters: [INST_RETIRED]}"))
    plan = _plan(path, tmp_path / "m", loops_registry())
    assert not plan.cells and len(plan.pruned) == 16
    assert "no PMU events" in plan.pruned[0].reason


def _spec_file(tmp_path: Path, models: str, engines: str, boards: str = "[qemu-m55]") -> Path:
    path = tmp_path / "m.yaml"
    path.write_text(f"hpx_matrix: 1\nmodels: {models}\nengines:\n{engines}\nboards: {boards}\n")
    return path


def test_config_variants_that_leave_the_library_alone_share_it(tmp_path: Path) -> None:
    configs = "".join(f"      s{i}: {{input_seed: {i}}}\n" for i in range(50))
    engines = f"  - type: tflm\n    backends: [reference, cmsis_nn]\n    configs:\n{configs}"
    plan = _plan(_spec_file(tmp_path, f"[{KWS}]", engines), tmp_path / "m")
    assert len(plan.cells) == 100 and len(plan.library_groups) == 2  # one per backend
    moved = engines + "      elsewhere: {source_path: /opt/tflite-micro}\n"
    plan = _plan(_spec_file(tmp_path, f"[{KWS}]", moved), tmp_path / "m")
    assert len(plan.library_groups) == 4  # the moved sources build their own library


def test_an_engine_reading_its_own_format_is_not_pruned(tmp_path: Path) -> None:
    kernels = REPO / "examples/engines/kernelbench/kernels.yaml"
    engines = "  - type: kernelbench\n  - type: tflm\n"
    plan = _plan(_spec_file(tmp_path, f"[{kernels}]", engines), tmp_path / "m")
    assert [p.cell.engine for p in plan.cells] == ["kernelbench"]
    (pruned,) = plan.pruned
    assert pruned.reason == "engine 'tflm' reads tflite models, not kernelbench models"


def test_a_product_over_the_cap_is_refused_before_it_is_made(tmp_path: Path) -> None:
    models = "[" + ", ".join(f"{{path: {KWS}, label: m{i}}}" for i in range(101)) + "]"
    configs = "".join(f"      s{i}: {{input_seed: {i}}}\n" for i in range(50))
    engines = f"  - type: tflm\n    backends: [reference, cmsis_nn]\n    configs:\n{configs}"
    with pytest.raises(ConfigError, match="make 10,100 cells, more than the 10,000"):
        _plan(_spec_file(tmp_path, models, engines), tmp_path / "m")
