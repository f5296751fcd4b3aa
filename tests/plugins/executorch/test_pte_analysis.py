"""A program as the core's analysis carries it: kept in the cache with its plans, shown by
``hpx analyze --json`` with its namespaces, read back by the engine as its records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hpx_executorch import pte_reader
from hpx_executorch.program import PteProgram, program_of

from hpx_core.models import ModelInfo, analyses
from hpx_core.models.report import model_report
from hpx_core.plugins import default_registry
from hpx_core.reading import keep_model, load_model

FIXTURES = Path(__file__).parents[2] / "fixtures"
TIER1 = FIXTURES / "executorch_tier1" / "tier1_arm.pte"


def _no_reader(*_args: object) -> ModelInfo:
    raise AssertionError("the program was parsed again")


def test_a_program_is_kept_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(analyses, "_held", type(analyses._held)())
    registry = default_registry()
    first = load_model(TIER1, registry, "executorch")
    program = program_of(first)
    assert isinstance(program, PteProgram) and program.plans[0].name == "forward"
    keep_model(first, registry, "executorch")
    monkeypatch.setattr(analyses, "_held", type(analyses._held)())  # a new process
    monkeypatch.setattr(pte_reader, "_read", _no_reader)
    again = load_model(TIER1, registry, "executorch")
    assert again == first
    assert program_of(again) == program


def test_a_program_is_read_by_the_plugin_whatever_its_name(tmp_path: Path) -> None:
    renamed = tmp_path / "program.tflite"
    renamed.write_bytes(TIER1.read_bytes())
    assert load_model(renamed).format == "pte"


def test_pte_report_has_namespaces() -> None:
    info = load_model(FIXTURES / "pte" / "tier1.pte")
    doc = json.loads(json.dumps(model_report(info)))
    assert doc["namespaces"] == {"cortex_m": 9, "aten": 1}
    assert {layer["namespace"] for layer in doc["layers"]} == {"cortex_m", "aten"}
    assert doc["layers"][6]["qualified_name"] == "aten::leaky_relu.out"
    assert doc["planned_arena_bytes"] == sum(doc["planned_memory"])
    assert doc["program"]["plans"][0]["name"] == "forward"
