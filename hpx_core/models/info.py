"""What hpx knows about a model file: the records every later stage reads.

The readers fill these once; the op resolver, the kernel registration, buffer sizing and the
result identity (SHA-256) all come from here, so nothing downstream parses a model again.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

import attrs

ModelFormat = Literal["tflite", "pte"]
CORE_FORMATS = ("tflite", "pte")  # the formats the core's readers read
Shape = tuple[int, ...]


def _operator_refs(value: Iterable[OperatorRef]) -> tuple[OperatorRef, ...]:
    return tuple(value)


def _plans(value: Iterable[ExecutionPlan]) -> tuple[ExecutionPlan, ...]:
    return tuple(value)


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
    dim_order: tuple[int, ...] = attrs.field(default=(), converter=_ints)  # PTE memory order


@attrs.frozen
class Operator:
    """One executed operator, in execution order.

    ``version`` is the TFLite operator-code version; ``overload`` the ExecuTorch overload name
    and ``namespace`` the part of its name before ``::`` (``delegate`` for a delegate call).
    ``macs`` is None when hpx has no arithmetic model for the operator (never a guess);
    ``params`` counts the elements of the constant tensors it reads: weights and biases, and
    for ExecuTorch kernels also the per-channel requantization tensors stored in the program.
    """

    index: int
    name: str
    inputs: tuple[Shape, ...] = attrs.field(converter=_shapes)
    outputs: tuple[Shape, ...] = attrs.field(converter=_shapes)
    macs: int | None
    params: int
    version: int | None = None
    overload: str | None = None
    namespace: str | None = None  # a PTE kernel's operator namespace (``aten``, ...)

    @property
    def qualified_name(self) -> str:
        """``name.overload`` for ExecuTorch operators (the selective-build spelling)."""
        return f"{self.name}.{self.overload}" if self.overload else self.name


@attrs.frozen
class OperatorRef:
    """An entry of an ExecuTorch execution plan's operator table."""

    name: str
    overload: str

    @property
    def qualified_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name


InstructionKind = Literal["kernel", "delegate", "move", "jump_false", "free"]


@attrs.frozen
class Instruction:
    """One ExecuTorch instruction.

    ``target``: the operator (kernel), delegate (delegate) or instruction (jump_false) index;
    ``args``: the value indices it reads and writes (for jump_false, the condition).
    """

    kind: InstructionKind
    target: int | None = None
    args: tuple[int, ...] = attrs.field(default=(), converter=_ints)


def _chains(value: Iterable[Iterable[Instruction]]) -> tuple[tuple[Instruction, ...], ...]:
    return tuple(tuple(chain) for chain in value)


@attrs.frozen
class ExecutionPlan:
    """One method of an ExecuTorch program (``forward`` for exported models)."""

    name: str
    operators: tuple[OperatorRef, ...] = attrs.field(converter=_operator_refs)
    chains: tuple[tuple[Instruction, ...], ...] = attrs.field(converter=_chains)
    delegates: tuple[str, ...] = attrs.field(converter=_strs)
    non_const_buffer_sizes: tuple[int, ...] = attrs.field(converter=_ints)
    value_count: int


@attrs.frozen
class PteProgram:
    """The ExecuTorch-specific view of a ``.pte`` file."""

    version: int
    plans: tuple[ExecutionPlan, ...] = attrs.field(converter=_plans)
    segment_count: int


@attrs.frozen
class ModelInfo:
    """Everything hpx reads from one model file.

    For a PTE, ``operators`` are the kernel (and delegate) calls of the analyzed plan in
    execution order; ``planned_memory`` holds its non-constant buffer sizes (buffer 0, reserved
    by ExecuTorch, left out).
    ``format`` is ``tflite`` or ``pte`` for the formats the core reads, and an engine's own
    format name for a model that engine's ``hpx_read_model`` read.
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
    constant_segment_bytes: int | None = None
    program: PteProgram | None = None
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
        """Operator count per operator namespace (PTE only; empty for TFLite)."""
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
