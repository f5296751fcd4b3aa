"""helia-aot builds the four MLPerf Tiny models for apollo510_evb (build-only: Ambiq CPUs only).

Each firmware links against the pinned ns-cmsis-nn, passes the placement check against the
board's memory map, and its symbols show the generated module with ns-cmsis-nn kernels and no
interpreter. Layers are named ``OP_TYPE:op_id`` from the compiler's own operator list.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hpx_heliaaot.engine import AotFacts
from profiles import BUILD_ONLY, profile_run

from hpx_core.firmware import symbol_inventory
from hpx_core.pipeline import ProfileOutcome

from .conftest import MLPERF_TINY, MODELS

pytestmark = pytest.mark.e2e
WORK = Path(tempfile.mkdtemp(prefix="hpx-heliaaot-e2e-"))
_BUILT: dict[str, ProfileOutcome] = {}


def built(model: str) -> ProfileOutcome:
    if model not in _BUILT:
        _BUILT[model] = profile_run(MODELS / f"{model}.tflite", "helia-aot", "apollo510_evb",
                                    WORK / model, until=BUILD_ONLY)
    return _BUILT[model]


@pytest.mark.parametrize("model", MLPERF_TINY)
def test_links_places_and_proves_its_kernels(model: str) -> None:
    done = built(model)
    assert done.build is not None and done.build.elf.is_file()
    assert done.findings and all(f.passed for f in done.findings), done.findings
    assert done.placement is not None and done.sources is not None
    flash = next(r for r in done.placement.regions if r.region.serves("flash"))
    assert 0 < flash.used <= flash.region.length
    assert done.sources.provenance == "qualified"


@pytest.mark.parametrize("model", MLPERF_TINY)
def test_layers_are_the_compilers_operators(model: str) -> None:
    done = built(model)
    assert done.build is not None and done.contribution is not None
    facts = done.contribution.facts
    assert isinstance(facts, AotFacts)
    layers = [op["layer"] for op in facts.operators]
    assert layers and all(re.fullmatch(r"[A-Z0-9_]+:\d+", name) for name in layers)
    assert len(set(layers)) == len(layers)
    assert [f"{op['op_type']}:{op['op_id']}" for op in facts.operators] == layers
    assert facts.memory_plan["tensors"], "the memory plan is kept"
    glue = (done.build.elf.parents[1] / "project" / "engine" / "hpx_aot_glue.c").read_text()
    for index, name in enumerate(layers):
        assert f'"{name}"' in glue
        op_id = int(name.split(":")[1])
        table = glue.split("layer_of_op[HPX_AOT_MAX_OP_ID + 1] = {")[1].split("}")[0]
        assert table.split(",")[op_id].strip() == f"{index}u"


def test_the_operator_callback_is_in_the_image() -> None:
    build = built("kws_ref_model").build
    assert build is not None
    names = symbol_inventory(build.elf).names()
    assert {"hpx_model_init", "hpx_model_run", "hpx_engine_invoke"} <= names
