"""Write small ExecuTorch programs with the flatbuffers Builder, following schema/program.fbs.

Tests use these to reach reader paths that the exported fixtures do not (a legacy inline
constant buffer, delegate calls, corrupt segments); the exported fixtures are the ground truth.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

import flatbuffers

# union tags
EVALUE_INT, EVALUE_TENSOR = 2, 5
KERNEL_CALL, DELEGATE_CALL, MOVE_CALL, JUMP_FALSE_CALL, FREE_CALL = 1, 2, 3, 4, 5


@dataclass
class TensorSpec:
    scalar_type: int  # executorch ScalarType: 1 int8 (CHAR), 6 float32, ...
    sizes: Sequence[int]
    constant_index: int = 0  # data_buffer_idx; > 0 with no allocation info: a constant
    planned: bool = True  # has allocation_info (memory-planned activation)


@dataclass
class Call:
    kind: int  # one of the *_CALL tags
    index: int  # op_index / delegate_index / move_from / cond_value_index / value_index
    args: Sequence[int] = ()  # kernel/delegate args; [move_to] or [destination_instruction]


@dataclass
class ProgramSpec:
    operators: Sequence[tuple[str, str]]
    values: Sequence[TensorSpec | int]  # int: an Int EValue
    inputs: Sequence[int]
    outputs: Sequence[int]
    calls: Sequence[Call]
    non_const_buffer_sizes: Sequence[int] = (0, 4096)
    delegates: Sequence[str] = ()
    plan_name: str = "forward"
    constant_segment: bytes | None = None  # placed as segment 0, needs an extended header
    inline_constants: Sequence[bytes] = ()  # legacy Program.constant_buffer
    extra: dict[str, int] = field(default_factory=dict)


def _ints(b: flatbuffers.Builder, values: Sequence[int], width: int = 4) -> int:
    b.StartVector(width, len(values), width)
    prepend = {4: b.PrependInt32, 8: b.PrependInt64, 1: b.PrependUint8}[width]
    for v in reversed(values):
        prepend(v)
    return int(b.EndVector())


def _offsets(b: flatbuffers.Builder, offsets: Sequence[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return int(b.EndVector())


def _tensor(b: flatbuffers.Builder, t: TensorSpec) -> int:
    sizes = _ints(b, list(t.sizes))
    dim_order = _ints(b, list(range(len(t.sizes))), width=1)
    alloc = 0
    if t.planned:
        b.StartObject(3)  # AllocationDetails
        b.PrependUint32Slot(0, 0, 0)
        b.PrependUint32Slot(1, 64, 0)
        alloc = b.EndObject()
    b.StartObject(10)  # Tensor
    b.PrependInt8Slot(0, t.scalar_type, 0)
    b.PrependUOffsetTRelativeSlot(2, sizes, 0)
    b.PrependUOffsetTRelativeSlot(3, dim_order, 0)
    b.PrependUint32Slot(5, t.constant_index, 0)
    if alloc:
        b.PrependUOffsetTRelativeSlot(6, alloc, 0)
    return int(b.EndObject())


def _evalue(b: flatbuffers.Builder, value: TensorSpec | int) -> int:
    if isinstance(value, TensorSpec):
        tag, payload = EVALUE_TENSOR, _tensor(b, value)
    else:
        b.StartObject(1)  # Int
        b.PrependInt64Slot(0, value, 0)
        tag, payload = EVALUE_INT, b.EndObject()
    b.StartObject(2)  # EValue { val: KernelTypes }
    b.PrependUint8Slot(0, tag, 0)
    b.PrependUOffsetTRelativeSlot(1, payload, 0)
    return int(b.EndObject())


def _instruction(b: flatbuffers.Builder, call: Call) -> int:
    if call.kind in (KERNEL_CALL, DELEGATE_CALL):
        args = _ints(b, list(call.args))
        b.StartObject(2)  # KernelCall / DelegateCall
        b.PrependInt32Slot(0, call.index, -1)
        b.PrependUOffsetTRelativeSlot(1, args, 0)
    elif call.kind in (MOVE_CALL, JUMP_FALSE_CALL):
        b.StartObject(2)  # MoveCall / JumpFalseCall: two ints
        b.PrependInt32Slot(0, call.index, -1)
        b.PrependInt32Slot(1, call.args[0], -1)
    else:
        b.StartObject(1)  # FreeCall
        b.PrependInt32Slot(0, call.index, -1)
    payload = b.EndObject()
    b.StartObject(2)  # Instruction { instr_args: InstructionArguments }
    b.PrependUint8Slot(0, call.kind, 0)
    b.PrependUOffsetTRelativeSlot(1, payload, 0)
    return int(b.EndObject())


def _plan(b: flatbuffers.Builder, spec: ProgramSpec) -> int:
    name = b.CreateString(spec.plan_name)
    values = _offsets(b, [_evalue(b, v) for v in spec.values])
    inputs, outputs = _ints(b, list(spec.inputs)), _ints(b, list(spec.outputs))
    instructions = _offsets(b, [_instruction(b, c) for c in spec.calls])
    b.StartObject(4)  # Chain
    b.PrependUOffsetTRelativeSlot(2, instructions, 0)
    chains = _offsets(b, [b.EndObject()])
    ops = []
    for op_name, overload in spec.operators:
        n, o = b.CreateString(op_name), b.CreateString(overload)
        b.StartObject(2)  # Operator
        b.PrependUOffsetTRelativeSlot(0, n, 0)
        b.PrependUOffsetTRelativeSlot(1, o, 0)
        ops.append(b.EndObject())
    operators = _offsets(b, ops)
    delegates = []
    for delegate_id in spec.delegates:
        s = b.CreateString(delegate_id)
        b.StartObject(3)  # BackendDelegate
        b.PrependUOffsetTRelativeSlot(0, s, 0)
        delegates.append(b.EndObject())
    delegate_vec = _offsets(b, delegates)
    sizes = _ints(b, list(spec.non_const_buffer_sizes), width=8)
    b.StartObject(9)  # ExecutionPlan
    b.PrependUOffsetTRelativeSlot(0, name, 0)
    b.PrependUOffsetTRelativeSlot(2, values, 0)
    b.PrependUOffsetTRelativeSlot(3, inputs, 0)
    b.PrependUOffsetTRelativeSlot(4, outputs, 0)
    b.PrependUOffsetTRelativeSlot(5, chains, 0)
    b.PrependUOffsetTRelativeSlot(6, operators, 0)
    b.PrependUOffsetTRelativeSlot(7, delegate_vec, 0)
    b.PrependUOffsetTRelativeSlot(8, sizes, 0)
    return int(b.EndObject())


def _program_table(b: flatbuffers.Builder, spec: ProgramSpec) -> int:
    plans = _offsets(b, [_plan(b, spec)])
    buffers = []
    for blob in spec.inline_constants:
        storage = b.CreateByteVector(blob)
        b.StartObject(1)  # Buffer
        b.PrependUOffsetTRelativeSlot(0, storage, 0)
        buffers.append(b.EndObject())
    constant_buffer = _offsets(b, buffers) if buffers else 0
    segments = subsegments = 0
    if spec.constant_segment is not None:
        b.StartObject(2)  # DataSegment
        b.PrependUint64Slot(0, 0, 0)
        b.PrependUint64Slot(1, len(spec.constant_segment), 0)
        segments = _offsets(b, [b.EndObject()])
        offsets = _ints(b, [0, 0], width=8)
        b.StartObject(2)  # SubsegmentOffsets
        b.PrependUint32Slot(0, 0, 0)
        b.PrependUOffsetTRelativeSlot(1, offsets, 0)
        subsegments = b.EndObject()
    b.StartObject(7)  # Program
    b.PrependUint32Slot(0, 0, 0)
    b.PrependUOffsetTRelativeSlot(1, plans, 0)
    if constant_buffer:
        b.PrependUOffsetTRelativeSlot(2, constant_buffer, 0)
    if segments:
        b.PrependUOffsetTRelativeSlot(4, segments, 0)
        b.PrependUOffsetTRelativeSlot(5, subsegments, 0)
    return int(b.EndObject())


def build_program(spec: ProgramSpec) -> bytes:
    """A .pte: flatbuffer, extended header when there is segment data, then the segment."""
    b = flatbuffers.Builder(1024)
    b.Finish(_program_table(b, spec), file_identifier=b"ET12")
    flat = bytes(b.Output())
    if spec.constant_segment is None:
        return flat
    # Insert a 32-byte extended header after the identifier (offsets inside the buffer are
    # relative, so only the root offset moves), then align the segment to 16 bytes.
    header_len = 32
    program_size = len(flat) + header_len
    segment_base = (program_size + 15) // 16 * 16
    root = struct.unpack_from("<I", flat, 0)[0] + header_len
    header = b"eh00" + struct.pack("<IQQ", 24, program_size, segment_base) + bytes(8)
    data = struct.pack("<I", root) + flat[4:8] + header + flat[8:]
    return data + bytes(segment_base - len(data)) + spec.constant_segment


def sample_spec() -> ProgramSpec:
    """A tier1-like program: quantize -> ns sub -> portable leaky_relu -> dequantize."""
    return ProgramSpec(
        operators=[
            ("cortex_m::quantize_per_tensor", "out"),
            ("cortex_m_ns::quantized_sub", "out"),
            ("aten::leaky_relu", "out"),
            ("cortex_m::dequantize_per_tensor", "out"),
        ],
        values=[
            TensorSpec(6, [1, 16, 32, 32], planned=False),  # 0 input (float)
            TensorSpec(1, [1, 16, 32, 32]),  # 1 quantized
            TensorSpec(1, [16], constant_index=1, planned=False),  # 2 constant
            TensorSpec(1, [1, 16, 32, 32]),  # 3 after sub
            TensorSpec(6, [1, 16, 32, 32]),  # 4 float for leaky_relu
            TensorSpec(6, [1, 16, 32, 32]),  # 5 output
            -128,  # 6 an Int argument
        ],
        inputs=[0],
        outputs=[5],
        calls=[
            Call(KERNEL_CALL, 0, [0, 6, 1]),
            Call(KERNEL_CALL, 1, [1, 2, 6, 3]),
            Call(KERNEL_CALL, 3, [3, 6, 4]),
            Call(KERNEL_CALL, 2, [4, 6, 5]),
            Call(FREE_CALL, 3),
        ],
        non_const_buffer_sizes=[0, 98304],
        constant_segment=bytes(range(16)) * 4,
    )
