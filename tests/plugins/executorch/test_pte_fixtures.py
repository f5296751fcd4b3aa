"""The reader against real ExecuTorch programs and the record the exporter wrote beside them.

``pte_fixtures.json`` comes from executorch's own emitted ``Program`` at export time, so every
assertion here compares hpx's torch-free reading with executorch's view of the same file.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hpx_executorch.program import program_of

from hpx_core.models import ModelInfo, TensorInfo
from hpx_core.reading import load_model

FIXTURES = Path(__file__).parents[2] / "fixtures" / "pte"
RECORD = json.loads((FIXTURES / "pte_fixtures.json").read_text(encoding="utf-8"))
PROGRAMS = {program["name"]: program for program in RECORD["programs"]}

# executorch ScalarType names (schema/scalar_type.fbs) -> hpx dtype names
DTYPES = {"BYTE": "uint8", "CHAR": "int8", "SHORT": "int16", "INT": "int32", "LONG": "int64",
          "FLOAT": "float32", "DOUBLE": "float64", "BOOL": "bool"}  # fmt: skip
KINDS = {"KernelCall": "kernel", "DelegateCall": "delegate", "MoveCall": "move",
         "JumpFalseCall": "jump_false", "FreeCall": "free"}  # fmt: skip


def _load(name: str) -> ModelInfo:
    return load_model(FIXTURES / PROGRAMS[name]["file"])


def test_the_fixtures_are_there() -> None:
    assert {"tier1", "tier1mean"} <= set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_file_identity(name: str) -> None:
    record = PROGRAMS[name]
    info = _load(name)
    data = (FIXTURES / record["file"]).read_bytes()
    assert info.format == "pte"
    assert info.sha256 == record["sha256"] == hashlib.sha256(data).hexdigest()
    assert info.size_bytes == record["size_bytes"]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_operator_tables_and_instructions(name: str) -> None:
    info = _load(name)
    program = program_of(info)
    assert program is not None
    plans = PROGRAMS[name]["execution_plans"]
    assert len(program.plans) == len(plans)
    for plan, recorded in zip(program.plans, plans, strict=True):
        assert plan.name == recorded["name"]
        assert [(op.name, op.overload) for op in plan.operators] == [
            (op["name"], op["overload"]) for op in recorded["operators"]
        ]
        assert len(plan.chains) == len(recorded["chains"])
        for chain, recorded_chain in zip(plan.chains, recorded["chains"], strict=True):
            assert [i.kind for i in chain] == [
                KINDS[i["kind"]] for i in recorded_chain["instructions"]
            ]
            calls = [i for i in chain if i.kind == "kernel"]
            assert [(i.target, len(i.args)) for i in calls] == [
                (i["op_index"], i["arg_count"])
                for i in recorded_chain["instructions"]
                if i["kind"] == "KernelCall"
            ]
        assert list(plan.non_const_buffer_sizes) == recorded["non_const_buffer_sizes"]
        assert plan.value_count == recorded["value_count"]
        assert len(plan.delegates) == recorded["delegate_count"]


def _tensor_record(t: TensorInfo) -> dict[str, Any]:
    return {"dtype": t.dtype, "sizes": list(t.shape), "dim_order": list(t.dim_order),
            "size_bytes": t.size_bytes}  # fmt: skip


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_inputs_outputs_and_memory(name: str) -> None:
    info = _load(name)
    (plan,) = PROGRAMS[name]["execution_plans"]
    for ours, recorded in ((info.inputs, plan["inputs"]), (info.outputs, plan["outputs"])):
        assert [_tensor_record(t) for t in ours] == [
            {"dtype": DTYPES[r["scalar_type"]], "sizes": r["sizes"], "dim_order": r["dim_order"],
             "size_bytes": r["size_bytes"]}
            for r in recorded
        ]  # fmt: skip
    # buffer 0 of non_const_buffer_sizes is reserved by ExecuTorch
    assert list(info.planned_memory) == plan["non_const_buffer_sizes"][1:]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_constant_segment(name: str) -> None:
    info = _load(name)
    layout = PROGRAMS[name]["layout"]
    segment = layout["segments"][layout["constant_segment"]["segment_index"]]
    assert info.constant_segment_bytes == info.weight_bytes == segment["size"]
    program = program_of(info)
    assert program is not None
    assert program.segment_count == len(layout["segments"])
    assert program.version == PROGRAMS[name]["program_version"]


def test_tier1_names_each_operators_namespace() -> None:
    info = _load("tier1")
    by_namespace: dict[str | None, set[str]] = {}
    for op in info.operators:
        by_namespace.setdefault(op.namespace, set()).add(op.qualified_name)
    assert by_namespace["aten"] == {"aten::leaky_relu.out"}
    assert "cortex_m::quantized_conv2d.out" in by_namespace["cortex_m"]
    assert "cortex_m_ns" not in by_namespace  # the stock exporter: only cortex_m:: and aten::


def test_tier1mean_lowers_to_avg_pool() -> None:
    info = _load("tier1mean")
    assert [op.qualified_name for op in info.operators] == [
        "cortex_m::quantize_per_tensor.out",
        "cortex_m::quantized_avg_pool2d.out",
        "cortex_m::dequantize_per_tensor.out",
    ]
    assert info.namespaces() == {"cortex_m": 3}
    pool = info.operators[1]
    # quantized_avg_pool2d.out(input, kernel_size, stride, padding, ceil_mode, zero_point,
    # multiplier, shift, Tensor scratch, *, out): the scratch is empty for this pool
    assert pool.inputs == ((1, 16, 32, 32), (0,)) and pool.outputs == ((1, 16, 1, 1),)
    # mean over the whole 32x32 plane: 16 outputs, each accumulating 32*32 inputs = 16,384
    assert pool.macs == 16 * 32 * 32


def test_conv_macs_by_hand() -> None:
    # conv3x3, 3 -> 8 channels, padding 1 on 8x8: 8*8*8 = 512 outputs, each 3*3*3 = 27 products
    (conv,) = [op for op in _load("conv").operators if op.name == "cortex_m::quantized_conv2d"]
    assert conv.outputs == ((1, 8, 8, 8),)
    assert conv.macs == 512 * 27 == 13_824
    # tier1: conv3x3 16 -> 16 on 32x32: 16*32*32 = 16,384 outputs * 3*3*16 = 144 products
    convs = [op for op in _load("tier1").operators if op.name == "cortex_m::quantized_conv2d"]
    assert [op.macs for op in convs] == [2_359_296, 2_359_296]


def test_out_variant_output_is_not_an_input() -> None:
    # cortex_m::quantized_conv2d.out(input, weight, bias?, stride, padding, dilation, offsets,
    # requantize_multipliers, requantize_shifts, activation range, scratch, *, out) -> out:
    # the emitter passes `out` and then the returned `out` again; it is the output only.
    (conv,) = [op for op in _load("conv").operators if op.name == "cortex_m::quantized_conv2d"]
    assert conv.inputs == ((1, 3, 8, 8), (8, 3, 3, 3), (8,), (8,), (8,), (128,))
    assert conv.outputs == ((1, 8, 8, 8),)
    # params: the constant weight, bias, multipliers and shifts: 8*3*3*3 + 8 + 8 + 8 = 240
    assert conv.params == 240
