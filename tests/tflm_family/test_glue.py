"""The generated TFLM-family project files for the real KWS model (no engine sources needed)."""

from __future__ import annotations

import re
from pathlib import Path

from hpx_tflm_family import (
    UPSTREAM_METHODS,
    InputSpec,
    family_glue,
    family_needs,
    input_bytes,
    parse_c_array,
    plan_arena,
    select_ops,
)

from hpx_core.boards import get_board
from hpx_core.contract import CodeSize, EngineSelection, FirmwareContribution, MemoryRequest
from hpx_core.firmware.layout import plan_layout
from hpx_core.pipeline.memory import with_planned_buffers
from hpx_core.reading import load_model

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def _glue(arena: int | None = None):  # type: ignore[no-untyped-def]
    model = load_model(KWS)
    inputs = input_bytes(InputSpec.parse("random", seed=3), model)
    plan = plan_arena(arena, get_board("qemu-m55"))
    return model, inputs, family_glue(model, KWS.read_bytes(), select_ops(model),
                                      UPSTREAM_METHODS, inputs, plan)


def test_files_and_sources() -> None:
    _model, _inputs, glue = _glue()
    assert set(glue.sources) <= set(glue.files)
    assert {"hpx_tflm_runner.cc", "hpx_tflm_glue.h", "hpx_tflm_config.h"} <= set(glue.files)


def test_model_bytes_and_inputs_are_embedded_exactly() -> None:
    _model, inputs, glue = _glue()
    assert parse_c_array(glue.files["hpx_tflm_model.cc"]) == KWS.read_bytes()
    assert parse_c_array(glue.files["hpx_tflm_inputs.cc"].split("\n", 2)[2]) == inputs[0]
    assert "hpx_tflm_input_sizes[] = {490u}" in glue.files["hpx_tflm_inputs.cc"]


def test_config_header_and_layer_table() -> None:
    model, _inputs, glue = _glue(arena=30_000)
    header = glue.files["hpx_tflm_config.h"]
    assert "#define HPX_TFLM_ARENA_SIZE 30000u" in header
    assert "#define HPX_TFLM_OP_COUNT 6" in header
    assert "#define HPX_TFLM_RESOURCE_VARIABLES 0" in header
    assert "#define HPX_TFLM_LAYER_COUNT 13u" in header
    ops = re.findall(r'"([A-Z_0-9]+)"', glue.files["hpx_tflm_layers.cc"].split("layer_ops")[1])
    assert ops == [op.name for op in model.operators]
    assert glue.layer_names[0] == "0_conv_2d" and glue.layer_names[-1] == "12_softmax"


def test_probe_arena_when_unset() -> None:
    _model, _inputs, glue = _glue()
    size = int(re.search(r"ARENA_SIZE (\d+)u", glue.files["hpx_tflm_config.h"]).group(1))  # type: ignore[union-attr]
    assert size == plan_arena(None, get_board("qemu-m55")).size


def test_the_arena_and_the_model_are_planned_buffers_the_runner_defines() -> None:
    _model, _inputs, glue = _glue(arena=40_000)
    arena, model = glue.buffers
    assert (arena.symbol, arena.size, model.symbol, model.size) == (
        "hpx_tflm_arena", 40_000, "hpx_tflm_model", KWS.stat().st_size)
    assert "data" in arena.uses and "flash" in model.uses
    runner = glue.files["hpx_tflm_runner.cc"]
    c_block = runner[runner.index('extern "C" {'):runner.index("}", runner.index('extern "C" {'))]
    # C linkage: its own name; the memory plan's section attribute (empty here) after it
    assert "uint8_t hpx_tflm_arena[HPX_TFLM_ARENA_SIZE] HPX_TFLM_ARENA_SECTION;" in c_block


def test_the_memory_plan_puts_model_and_arena_where_it_placed_them() -> None:
    board = get_board("qemu-m55")
    model = load_model(KWS)
    request = MemoryRequest(EngineSelection("tflm", None, None), board, model, arena_size=40_000,
                            location="flash", arena_location="tcm")
    layout = plan_layout(board, family_needs(request, CodeSize(1024, 1024)))
    inputs = input_bytes(InputSpec.parse("random", seed=3), model)
    glue = family_glue(model, KWS.read_bytes(), select_ops(model), UPSTREAM_METHODS, inputs,
                       plan_arena(40_000, board), layout)
    array = glue.files["hpx_tflm_model.cc"]
    assert 'uint8_t hpx_tflm_model[] __attribute__((section(".hpx_qspi"))) = {' in array
    assert parse_c_array(array) == KWS.read_bytes()
    assert ('#define HPX_TFLM_ARENA_SECTION __attribute__((section(".hpx_dtcm_bss")))'
            in glue.files["hpx_tflm_config.h"])
    assert glue.buffers == ()  # planned: declared once, by the plan, checked by the core
    checked = with_planned_buffers(FirmwareContribution(files={}), layout).buffers
    assert {(b.symbol, b.uses) for b in checked} == {("hpx_tflm_model", ("flash",)),
                                                     ("hpx_tflm_arena", ("tcm",))}
