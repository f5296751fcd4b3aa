"""helia-aot builds the four MLPerf Tiny models for apollo510_evb (build-only: Ambiq CPUs only).

Each firmware links against the pinned ns-cmsis-nn, passes the placement check against the
board's memory map, and its symbols show the generated module with ns-cmsis-nn kernels and no
interpreter. Layers are named ``OP_TYPE:op_id`` from the compiler's own operator list.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hpx_heliaaot.e2e import AotBuild, build_model
from hpx_heliaaot.engine import INFO_FILE

from hpx_core.build import symbol_inventory

from .conftest import MLPERF_TINY, MODELS

pytestmark = pytest.mark.e2e
WORK = Path(tempfile.mkdtemp(prefix="hpx-heliaaot-e2e-"))
_BUILT: dict[str, AotBuild] = {}


def built(model: str) -> AotBuild:
    if model not in _BUILT:
        _BUILT[model] = build_model(MODELS / f"{model}.tflite", "apollo510_evb", WORK / model)
    return _BUILT[model]


@pytest.mark.parametrize("model", MLPERF_TINY)
def test_links_places_and_proves_its_kernels(model: str) -> None:
    done = built(model)
    assert done.build.elf.is_file()
    assert all(f.passed for f in done.findings), done.findings
    flash = next(r for r in done.placement.regions if r.region.use == "flash")
    assert 0 < flash.used <= flash.region.length
    assert done.sources.provenance == "qualified"


@pytest.mark.parametrize("model", MLPERF_TINY)
def test_layers_are_the_compilers_operators(model: str) -> None:
    done = built(model)
    info = json.loads((done.build.elf.parents[1] / "project" / "engine" / INFO_FILE).read_text())
    layers = [op["layer"] for op in info["operators"]]
    assert layers and all(re.fullmatch(r"[A-Z0-9_]+:\d+", name) for name in layers)
    assert len(set(layers)) == len(layers)
    assert [op["op_type"] for op in info["operators"]] == [
        f"{op.op_type}" for op in done.firmware.module.operators]
    assert info["memory_plan"]["tensors"], "the memory plan is kept"
    glue = (done.build.elf.parents[1] / "project" / "engine" / "hpx_aot_glue.c").read_text()
    for index, name in enumerate(layers):
        assert f'"{name}"' in glue
        op_id = int(name.split(":")[1])
        table = glue.split("layer_of_op[HPX_AOT_MAX_OP_ID + 1] = {")[1].split("}")[0]
        assert table.split(",")[op_id].strip() == f"{index}u"


def test_the_operator_callback_is_in_the_image() -> None:
    names = symbol_inventory(built("kws_ref_model").build.elf).names()
    assert {"hpx_model_init", "hpx_model_run", "hpx_engine_invoke"} <= names
