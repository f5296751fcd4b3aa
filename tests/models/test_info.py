"""ModelInfo's derived values: totals that never invent numbers."""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.models import ModelInfo, Operator, TensorInfo


def _op(index: int, macs: int | None, namespace: str | None = None) -> Operator:
    return Operator(index=index, name="aten::relu", overload="out", inputs=[[4]],
                    outputs=[[4]], macs=macs, params=index, namespace=namespace)  # fmt: skip


def _info(inputs: list[TensorInfo], operators: list[Operator]) -> ModelInfo:
    return ModelInfo(format="pte", path=Path("m.pte"), sha256="0" * 64, size_bytes=1,
                     operators=operators, inputs=inputs, outputs=[], weight_bytes=0,
                     resolver_ops=[], planned_memory=[100, 28])  # fmt: skip


def test_totals_skip_uncounted_operators() -> None:
    info = _info([], [_op(0, 10), _op(1, None), _op(2, 5)])
    assert info.total_macs == 15  # operator 1 has no rule and adds nothing
    assert info.total_params == 3
    assert info.planned_arena_bytes == 128


def test_io_bytes_are_unknown_when_one_size_is() -> None:
    known = TensorInfo(name="a", dtype="int8", shape=[4], size_bytes=4)
    unknown = TensorInfo(name="b", dtype="scalar_type_42", shape=[4], size_bytes=None)
    assert _info([known, known], []).input_bytes == 8
    assert _info([known, unknown], []).input_bytes is None
    assert _info([], []).output_bytes == 0


def test_namespaces_and_names() -> None:
    ops = [_op(0, 1, "aten"), _op(1, 1, "cortex_m_ns"), _op(2, 1, "cortex_m_ns")]
    assert _info([], ops).namespaces() == {"aten": 1, "cortex_m_ns": 2}
    assert ops[0].qualified_name == "aten::relu.out"
    assert attrs.evolve(ops[0], overload=None).qualified_name == "aten::relu"


def test_converters_make_tuples() -> None:
    op = _op(0, 1)
    assert op.inputs == ((4,),) and isinstance(op.inputs, tuple)
