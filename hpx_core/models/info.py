"""What hpx knows about a model file: the records every later stage reads.

The reader of the file's format (a plugin's ``hpx_read_model``) fills these once; the op
resolver, the kernel registration, buffer sizing and the result identity (SHA-256) all come
from here, so nothing downstream parses a model again. The records are the same for every
format: what one format alone has travels in ``ModelInfo.program`` for its engine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

Shape = tuple[int, ...]


def _operators(value: Iterable[Operator]) -> tuple[Operator, ...]:
    return tuple(value)


def _tensors(value: Iterable[TensorInfo]) -> tuple[TensorInfo, ...]:
    return tuple(value)


def _shapes(value: Iterable[Iterable[int]]) -> tuple[Shape, ...]:
    """Converter: any iterable of iterables of ints -> a tuple of int tuples."""
    return tuple(tuple(int(d) for d in shape) for shape in value)


def _ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in value)


def _floats(value: Iterable[float]) -> tuple[float, ...]:
    return tuple(float(v) for v in value)


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in value)


@attrs.frozen
class Quantization:
    """Affine quantization: real = scale * (q - zero_point), per tensor or per ``axis``."""

    scales: tuple[float, ...] = attrs.field(converter=_floats)
    zero_points: tuple[int, ...] = attrs.field(converter=_ints)
    axis: int = 0


@attrs.frozen
class TensorInfo:
    """A model input or output: how big the buffer the firmware provides must be."""

    name: str
    dtype: str
    shape: Shape = attrs.field(converter=_ints)
    size_bytes: int | None  # None when the element type has no fixed size
    quantization: Quantization | None = None
    # the order of the dimensions in memory, when the format stores it (empty: as ``shape``)
    dim_order: tuple[int, ...] = attrs.field(default=(), converter=_ints)


@attrs.frozen
class Operator:
    """One executed operator, in execution order.

    ``version`` is the operator-code version of formats that version operators (TFLite);
    ``overload`` the overload name and ``namespace`` the operator namespace (the part of its
    name before ``::``) of formats whose operators have them, None for the others.
    ``macs`` is None when the reader has no arithmetic model for the operator (never a guess);
    ``params`` counts the elements of the constant tensors it reads: weights and biases, and
    whatever other constants the format stores beside them (requantization tensors, say).
    """

    index: int
    name: str
    inputs: tuple[Shape, ...] = attrs.field(converter=_shapes)
    outputs: tuple[Shape, ...] = attrs.field(converter=_shapes)
    macs: int | None
    params: int
    version: int | None = None
    overload: str | None = None
    namespace: str | None = None  # the operator namespace (``aten``, ...), when it has one

    @property
    def qualified_name(self) -> str:
        """``name.overload`` for an operator with an overload, else its name."""
        return f"{self.name}.{self.overload}" if self.overload else self.name


@attrs.frozen
class ModelInfo:
    """Everything hpx reads from one model file.

    ``operators`` are the executed operators in execution order; ``planned_memory`` holds the
    sizes of the non-constant buffers the format plans ahead (empty when it plans none).
    ``format`` names the format (``tflite``, or the name an engine's reader gives its own).
    ``program`` is what the format alone has (a program's methods and instructions, say), as
    JSON-ready data its reader fills and its engine reads back; None when there is nothing.
    ``absent_fields`` names the fields an older converter left empty that some engine's tools
    read (:mod:`hpx_core.models.tflite_fields`); hpx supplies them in a copy when it must.
    """

    format: str
    path: Path
    sha256: str
    size_bytes: int
    operators: tuple[Operator, ...] = attrs.field(converter=_operators)
    inputs: tuple[TensorInfo, ...] = attrs.field(converter=_tensors)
    outputs: tuple[TensorInfo, ...] = attrs.field(converter=_tensors)
    weight_bytes: int
    resolver_ops: tuple[str, ...] = attrs.field(converter=_strs)
    var_handle_count: int = 0
    subgraph_count: int = 1
    planned_memory: tuple[int, ...] = attrs.field(default=(), converter=_ints)
    constant_segment_bytes: int | None = None  # when the format keeps constants in a segment
    # JSON-ready (kept in the cache as it is); a dict, so left out of the record's hash
    program: Mapping[str, Any] | None = attrs.field(default=None, hash=False)
    absent_fields: tuple[str, ...] = attrs.field(default=(), converter=_strs)

    @property
    def total_macs(self) -> int:
        """Sum of the MACs hpx could count (operators with ``macs`` None contribute nothing)."""
        return sum(op.macs for op in self.operators if op.macs is not None)

    @property
    def total_params(self) -> int:
        return sum(op.params for op in self.operators)

    @property
    def input_bytes(self) -> int | None:
        return _sum_sizes(self.inputs)

    @property
    def output_bytes(self) -> int | None:
        return _sum_sizes(self.outputs)

    @property
    def planned_arena_bytes(self) -> int:
        return sum(self.planned_memory)

    def namespaces(self) -> dict[str, int]:
        """Operator count per operator namespace (empty for a format without namespaces)."""
        counts: dict[str, int] = {}
        for op in self.operators:
            if op.namespace is not None:
                counts[op.namespace] = counts.get(op.namespace, 0) + 1
        return counts


def _sum_sizes(tensors: tuple[TensorInfo, ...]) -> int | None:
    sizes = [t.size_bytes for t in tensors]
    if any(s is None for s in sizes):
        return None
    return sum(s for s in sizes if s is not None)
