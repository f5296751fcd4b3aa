"""The ExecuTorch reader on programs written with the flatbuffers Builder per program.fbs.

The exported fixtures (test_pte_fixtures.py) are the ground truth; these cover
the paths an export rarely produces (legacy inline constants, delegates, damaged segments).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hpx_executorch.program import program_of
from ptebuild import (
    DELEGATE_CALL,
    JUMP_FALSE_CALL,
    KERNEL_CALL,
    MOVE_CALL,
    Call,
    TensorSpec,
    build_program,
    sample_spec,
)

from hpx_core.errors import ModelError
from hpx_core.reading import load_model


def _write(tmp_path: Path, data: bytes, name: str = "model.pte") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_sample_program(tmp_path: Path) -> None:
    info = load_model(_write(tmp_path, build_program(sample_spec())))
    assert info.format == "pte"
    # execution order follows the instructions, not the operator table
    assert [op.qualified_name for op in info.operators] == [
        "cortex_m::quantize_per_tensor.out",
        "cortex_m_ns::quantized_sub.out",
        "cortex_m::dequantize_per_tensor.out",
        "aten::leaky_relu.out",
    ]
    assert [op.namespace for op in info.operators] == [
        "cortex_m", "cortex_m_ns", "cortex_m", "aten",
    ]  # fmt: skip
    assert info.namespaces() == {"cortex_m": 2, "cortex_m_ns": 1, "aten": 1}
    # the last tensor argument is the output; the Int argument is not a tensor
    sub = info.operators[1]
    assert sub.inputs == ((1, 16, 32, 32), (16,)) and sub.outputs == ((1, 16, 32, 32),)
    assert sub.params == 16  # the constant [16] operand
    assert [(t.dtype, t.shape, t.size_bytes) for t in info.inputs] == [
        ("float32", (1, 16, 32, 32), 16 * 32 * 32 * 4)
    ]
    assert info.planned_memory == (98304,)
    assert info.constant_segment_bytes == info.weight_bytes == 64
    program = program_of(info)
    assert program is not None
    (plan,) = program.plans
    assert plan.name == "forward"
    assert [(i.kind, i.target) for i in plan.chains[0]] == [
        ("kernel", 0), ("kernel", 1), ("kernel", 3), ("kernel", 2), ("free", None),
    ]  # fmt: skip
    assert plan.chains[0][-1].args == (3,)  # FreeCall.value_index


def test_legacy_inline_constants_and_no_header(tmp_path: Path) -> None:
    spec = sample_spec()
    spec.constant_segment = None
    spec.inline_constants = [b"", bytes(40), bytes(24)]
    data = build_program(spec)
    assert data[8:10] != b"eh"
    info = load_model(_write(tmp_path, data))
    assert info.constant_segment_bytes == 64


def test_delegate_call_and_other_namespace(tmp_path: Path) -> None:
    spec = sample_spec()
    spec.operators = [("quantized_decomposed::add", "out"), ("aten::add", "Tensor")]
    spec.delegates = ["ArmBackend"]
    spec.calls = [
        Call(KERNEL_CALL, 0, [0, 1]),
        Call(DELEGATE_CALL, 0, [1, 3]),
        Call(KERNEL_CALL, 1, [3, 5]),
    ]
    info = load_model(_write(tmp_path, build_program(spec)))
    assert [(op.name, op.namespace) for op in info.operators] == [
        ("quantized_decomposed::add", "quantized_decomposed"),
        ("delegate:ArmBackend", "delegate"),
        ("aten::add", "aten"),
    ]


def test_move_and_jump_instructions(tmp_path: Path) -> None:
    spec = sample_spec()
    spec.calls = [Call(MOVE_CALL, 1, [3]), Call(JUMP_FALSE_CALL, 6, [0]), *spec.calls]
    info = load_model(_write(tmp_path, build_program(spec)))
    program = program_of(info)
    assert program is not None
    move, jump = program.plans[0].chains[0][:2]
    assert (move.kind, move.target, move.args) == ("move", None, (1, 3))
    assert (jump.kind, jump.target, jump.args) == ("jump_false", 0, (6,))
    assert len(info.operators) == 4  # control flow is not an operator


def test_plan_named_forward_is_analyzed(tmp_path: Path) -> None:
    spec = sample_spec()
    spec.plan_name = "encode"
    info = load_model(_write(tmp_path, build_program(spec)))
    program = program_of(info)
    assert program is not None and program.plans[0].name == "encode"
    assert len(info.operators) == 4  # without a forward, the first plan


def test_truncated_segment_is_reported(tmp_path: Path) -> None:
    data = build_program(sample_spec())
    with pytest.raises(ModelError, match="truncated") as err:
        load_model(_write(tmp_path, data[:-10]))
    assert "cut short" in err.value.hint


def test_header_claiming_more_program_than_the_file(tmp_path: Path) -> None:
    data = bytearray(build_program(sample_spec()))
    struct.pack_into("<Q", data, 16, len(data) + 1)
    with pytest.raises(ModelError, match="truncated"):
        load_model(_write(tmp_path, bytes(data)))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d[:12],  # header only
        lambda d: d[:200],  # cut inside the flatbuffer
        lambda d: struct.pack("<I", 0xFFFFFF00) + d[4:],  # root offset past the end
        lambda d: d[:4] + b"ET99" + d[8:],  # another format version
        lambda d: d[:4] + b"ETxx" + d[8:],  # not a program at all
    ],
    ids=["header-only", "cut", "root-offset", "version", "identifier"],
)
def test_damaged_programs_raise_model_error(tmp_path: Path, mutate: object) -> None:
    data = mutate(build_program(sample_spec()))  # type: ignore[operator]
    with pytest.raises(ModelError) as err:
        load_model(_write(tmp_path, data))
    assert err.value.hint


def test_instruction_to_missing_operator(tmp_path: Path) -> None:
    spec = sample_spec()
    spec.calls = [Call(KERNEL_CALL, 7, [0, 1])]
    with pytest.raises(ModelError, match="index 7"):
        load_model(_write(tmp_path, build_program(spec)))


def test_argument_to_missing_value(tmp_path: Path) -> None:
    spec = sample_spec()
    spec.calls = [Call(KERNEL_CALL, 0, [0, 99])]
    with pytest.raises(ModelError, match="value index 99"):
        load_model(_write(tmp_path, build_program(spec)))


def test_unknown_scalar_type_has_no_size(tmp_path: Path) -> None:
    spec = sample_spec()
    spec.values = [TensorSpec(42, [2, 2], planned=False), *list(spec.values)[1:]]
    info = load_model(_write(tmp_path, build_program(spec)))
    assert (info.inputs[0].dtype, info.inputs[0].size_bytes) == ("scalar_type_42", None)
    assert info.input_bytes is None
