"""Read an ExecuTorch ``.pte`` program without torch (the engine's ``hpx_read_model``).

A PTE is a FlatBuffer (executorch ``schema/program.fbs``, identifier ``ET12``) optionally
followed by data segments that an extended header (``eh00`` at byte 8) locates. The accessors
below follow the schema's field order; slot numbers are the schema's declaration order.

The operator table, not an export-time report, decides which kernels a firmware must register:
every entry is resolved at ``Method::load`` whether or not it is reached.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import attrs

from hpx_core.sdk import ModelError
from hpx_core.sdk.flatbuf import I8, I32, I64, U8, U32, U64, FlatBuffer, Table
from hpx_core.sdk.models import MALFORMED, Budget, ModelInfo, Operator, TensorInfo, malformed
from hpx_executorch.program import (
    ExecutionPlan,
    Instruction,
    InstructionKind,
    OperatorRef,
    PteProgram,
    kept_program,
    plain,
)
from hpx_executorch.pte_macs import pte_macs

IDENTIFIER = b"ET12"
KIND = "ExecuTorch program"
_EXTENDED_HEADER = re.compile(rb"eh\d\d")

# executorch ScalarType -> (name, bytes per element)
_SCALAR_TYPES: dict[int, tuple[str, int | None]] = {
    0: ("uint8", 1), 1: ("int8", 1), 2: ("int16", 2), 3: ("int32", 4), 4: ("int64", 8),
    5: ("float16", 2), 6: ("float32", 4), 7: ("float64", 8), 11: ("bool", 1),
    12: ("qint8", 1), 13: ("quint8", 1), 14: ("qint32", 4), 15: ("bfloat16", 2),
    16: ("quint4x2", None), 17: ("quint2x4", None),
}  # fmt: skip

# union KernelTypes (EValue.val) tags; 0 is NONE
_EVALUE_INT, _EVALUE_TENSOR, _EVALUE_INT_LIST = 2, 5, 7
# union InstructionArguments tags
_INSTRUCTION_KINDS: dict[int, InstructionKind] = {
    1: "kernel", 2: "delegate", 3: "move", 4: "jump_false", 5: "free",
}  # fmt: skip


@attrs.frozen
class _Tensor:
    dtype: str
    shape: tuple[int, ...]
    dim_order: tuple[int, ...]
    element_bytes: int | None
    constant: bool


def read_pte(data: bytes, path: Path, sha256: str) -> ModelInfo:
    """Parse an ExecuTorch program; any structural damage becomes a :class:`ModelError`."""
    if len(data) < 8 or data[4:8] != IDENTIFIER:
        found = data[4:8]
        raise ModelError(
            f"{path.name}: not an ExecuTorch ET12 program (identifier {found!r} at byte 4)",
            hint="hpx reads programs written by ExecuTorch's to_executorch() (format ET12); "
            "re-export the program with a current exporter",
        )
    try:
        return _read(data, path, sha256)
    except ModelError:
        raise
    except MALFORMED as exc:
        raise malformed(path.name, KIND, type(exc).__name__) from exc


def _extended_header(data: bytes, fb: FlatBuffer) -> tuple[int, int]:
    """(program size, segment base offset); without a header the program is the whole file."""
    if not _EXTENDED_HEADER.fullmatch(data[8:12]):
        return len(data), 0
    header_size = fb.read(U32, 12)
    if header_size < 24:
        raise fb.error(f"extended header of {header_size} bytes")
    program_size, segment_base = fb.read(U64, 16), fb.read(U64, 24)
    if program_size > len(data) or program_size < 16:
        raise ModelError(
            f"{fb.budget.name}: truncated ExecuTorch program: the header says {program_size} "
            f"bytes of program data, the file has {len(data)}",
            hint="the file was cut short; copy or re-export it again",
        )
    return program_size, segment_base


def _read(data: bytes, path: Path, sha256: str) -> ModelInfo:
    budget = Budget(len(data), path.name, KIND)
    program_size, segment_base = _extended_header(data, FlatBuffer(data, budget))
    program = FlatBuffer(data, budget, limit=program_size).root()
    plans = [_plan(t) for t in program.tables(1)]  # execution_plan
    if not plans:
        raise ModelError(
            f"{path.name}: the ExecuTorch program has no execution plan",
            hint="re-export the model; a program needs at least a forward method",
        )
    segments = [(s.scalar(0, U64), s.scalar(1, U64)) for s in program.tables(4)]  # segments
    for offset, size in segments:
        if segment_base + offset + size > len(data):
            raise ModelError(
                f"{path.name}: truncated ExecuTorch program: a data segment ends at byte "
                f"{segment_base + offset + size}, the file has {len(data)}",
                hint="the file was cut short; copy or re-export it again",
            )
    constant_bytes = _constant_bytes(program, segments, path.name)
    index = next((i for i, p in enumerate(plans) if p[0].name == "forward"), 0)
    plan, operators, inputs, outputs = plans[index]
    pte = PteProgram(
        version=program.scalar(0, U32), plans=[p[0] for p in plans], segment_count=len(segments)
    )
    info = ModelInfo(
        format="pte",
        path=path,
        sha256=sha256,
        size_bytes=len(data),
        operators=operators,
        inputs=inputs,
        outputs=outputs,
        weight_bytes=constant_bytes,
        resolver_ops=sorted({op.qualified_name for op in plan.operators}),
        subgraph_count=len(plans),
        planned_memory=plan.non_const_buffer_sizes[1:],
        constant_segment_bytes=constant_bytes,
        program=plain(pte),  # JSON-ready: kept with the analysis (program_of reads it back)
    )
    kept_program(info, pte)
    return info


def _constant_bytes(program: Table, segments: list[tuple[int, int]], name: str) -> int:
    """Size of the constant data: the constant segment, or the legacy inline buffers."""
    subsegments = program.table(5)  # constant_segment: SubsegmentOffsets
    if subsegments is not None and subsegments.scalars(1, U64):  # offsets
        segment = subsegments.scalar(0, U32)  # segment_index
        if segment >= len(segments):
            raise malformed(name, KIND, f"constant segment {segment} does not exist")
        return segments[segment][1]
    # constant_buffer: [Buffer { storage: [ubyte] }] (deprecated, still readable)
    return sum(len(buffer.scalars(0, U8)) for buffer in program.tables(2))


def _plan(
    t: Table,
) -> tuple[ExecutionPlan, list[Operator], list[TensorInfo], list[TensorInfo]]:
    """ExecutionPlan fields: name 0, container_meta_type 1, values 2, inputs 3, outputs 4,
    chains 5, operators 6, delegates 7, non_const_buffer_sizes 8."""
    values = t.tables(2)
    operators = [
        OperatorRef(name=o.string(0) or "", overload=o.string(1) or "") for o in t.tables(6)
    ]
    delegates = [d.string(0) or "" for d in t.tables(7)]  # BackendDelegate.id
    chains = [[_instruction(i) for i in chain.tables(2)] for chain in t.tables(5)]
    plan = ExecutionPlan(
        name=t.string(0) or "",
        operators=operators,
        chains=chains,
        delegates=delegates,
        non_const_buffer_sizes=t.scalars(8, I64),
        value_count=len(values),
    )
    tensors = _Values(values, t.fb)
    executed = _operators(plan, tensors)
    inputs = [tensors.io(v, f"input{n}") for n, v in enumerate(t.scalars(3, I32))]
    outputs = [tensors.io(v, f"output{n}") for n, v in enumerate(t.scalars(4, I32))]
    return plan, executed, inputs, outputs


def _instruction(t: Table) -> Instruction:
    """Instruction { instr_args: InstructionArguments } (union: type slot 0, value slot 1)."""
    tag, args = t.union(0)
    kind = _INSTRUCTION_KINDS.get(tag)
    if kind is None or args is None:
        raise t.fb.error(f"instruction of unknown type {tag}")
    if kind in ("kernel", "delegate"):  # KernelCall/DelegateCall: index 0, args 1
        return Instruction(kind=kind, target=args.scalar(0, I32), args=args.scalars(1, I32))
    if kind == "move":  # MoveCall: move_from 0, move_to 1
        return Instruction(kind=kind, args=(args.scalar(0, I32), args.scalar(1, I32)))
    if kind == "jump_false":  # JumpFalseCall: cond_value_index 0, destination_instruction 1
        return Instruction(kind=kind, target=args.scalar(1, I32), args=(args.scalar(0, I32),))
    return Instruction(kind=kind, args=(args.scalar(0, I32),))  # FreeCall: value_index 0


class _Values:
    """The plan's EValue table, decoded on demand."""

    def __init__(self, values: list[Table], fb: FlatBuffer) -> None:
        self.values = values
        self.fb = fb
        self.cache: dict[int, tuple[int, Table | None]] = {}
        self.tensors: dict[int, _Tensor | None] = {}
        self.int_lists: dict[int, tuple[int, ...] | None] = {}

    def _value(self, index: int) -> tuple[int, Table | None]:
        if not 0 <= index < len(self.values):
            raise self.fb.error(f"value index {index} out of range (0..{len(self.values) - 1})")
        if index not in self.cache:
            self.cache[index] = self.values[index].union(0)  # EValue { val: KernelTypes }
        return self.cache[index]

    def tensor(self, index: int) -> _Tensor | None:
        if index not in self.tensors:
            tag, val = self._value(index)
            self.tensors[index] = _tensor(val) if tag == _EVALUE_TENSOR and val else None
        return self.tensors[index]

    def int_list(self, index: int) -> tuple[int, ...] | None:
        """An IntList's values; its items are indices of Int EValues."""
        if index not in self.int_lists:
            self.int_lists[index] = self._int_list(index)
        return self.int_lists[index]

    def _int_list(self, index: int) -> tuple[int, ...] | None:
        tag, val = self._value(index)
        if tag != _EVALUE_INT_LIST or val is None:
            return None
        ints = []
        for item in val.scalars(0, I64):
            item_tag, item_val = self._value(item)
            if item_tag != _EVALUE_INT or item_val is None:
                return None
            ints.append(item_val.scalar(0, I64))  # Int { int_val: long }
        return tuple(ints)

    def io(self, index: int, name: str) -> TensorInfo:
        tensor = self.tensor(index)
        if tensor is None:
            return TensorInfo(name=name, dtype="non-tensor", shape=(), size_bytes=None)
        if any(d < 0 for d in tensor.shape):
            raise ModelError(f"{name} has a negative dimension (sizes {list(tensor.shape)})",
                             "the program is damaged; export it again")
        size = (
            None
            if tensor.element_bytes is None
            else tensor.element_bytes * math.prod(max(d, 0) for d in tensor.shape)
        )
        return TensorInfo(
            name=name,
            dtype=tensor.dtype,
            shape=tensor.shape,
            size_bytes=size,
            dim_order=tensor.dim_order,
        )


def _tensor(t: Table) -> _Tensor:
    """Tensor fields: scalar_type 0, storage_offset 1, sizes 2, dim_order 3, requires_grad 4,
    data_buffer_idx 5, allocation_info 6, layout 7, shape_dynamism 8, extra_tensor_info 9."""
    scalar_type = t.scalar(0, I8)
    dtype, element_bytes = _SCALAR_TYPES.get(scalar_type, (f"scalar_type_{scalar_type}", None))
    constant = t.scalar(5, U32) > 0 and t.table(6) is None
    return _Tensor(dtype, t.scalars(2, I32), t.scalars(3, U8), element_bytes, constant)


def _returned(args: tuple[int, ...]) -> int:
    """How many trailing arguments are return values.

    The emitter passes a kernel its schema arguments, then its return values; an out-variant
    returns its ``out`` arguments, so each return repeats a value index already in the list.
    """
    count = 0
    while count < len(args) and args[-1 - count] in args[: -1 - count]:
        count += 1
    return count


def _operators(plan: ExecutionPlan, values: _Values) -> list[Operator]:
    """Kernel and delegate calls in execution order, chain by chain.

    Outputs are the returned values (for a call without returns, its last tensor argument);
    inputs are the other tensor arguments, in order.
    """
    executed: list[Operator] = []
    for chain in plan.chains:
        for instruction in chain:
            if instruction.kind not in ("kernel", "delegate") or instruction.target is None:
                continue
            args = instruction.args
            returned = _returned(args)
            if returned:
                out_ids = list(dict.fromkeys(args[len(args) - returned :]))
            else:
                out_ids = [a for a in args if values.tensor(a) is not None][-1:]
            ins = [t for t in (values.tensor(a) for a in args if a not in out_ids) if t is not None]
            outs = [t for t in (values.tensor(a) for a in out_ids) if t is not None]
            lists = [v for v in (values.int_list(a) for a in args) if v is not None]
            name, overload, namespace = _callee(plan, instruction, values.fb)
            in_shapes, out_shapes = [t.shape for t in ins], [t.shape for t in outs]
            executed.append(
                Operator(
                    index=len(executed),
                    name=name,
                    overload=overload,
                    namespace=namespace,
                    inputs=in_shapes,
                    outputs=out_shapes,
                    params=sum(math.prod(max(d, 0) for d in t.shape) for t in ins if t.constant),
                    macs=pte_macs(name, in_shapes, out_shapes, lists),
                )
            )
    return executed


def _callee(
    plan: ExecutionPlan, instruction: Instruction, fb: FlatBuffer
) -> tuple[str, str | None, str]:
    target = instruction.target if instruction.target is not None else -1
    table = plan.operators if instruction.kind == "kernel" else plan.delegates
    if not 0 <= target < len(table):
        raise fb.error(f"{instruction.kind} call to index {target} of a {len(table)}-entry table")
    if instruction.kind == "delegate":
        return f"delegate:{plan.delegates[target]}", None, "delegate"
    op = plan.operators[target]
    return op.name, op.overload, op.name.partition("::")[0] if "::" in op.name else ""
