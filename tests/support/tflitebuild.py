"""Small TFLite models written with the schema's Builder, for features the MLPerf Tiny models lack.

Resource variables, control-flow subgraphs, custom operators, optional inputs, int4 weights
and weights stored outside the flatbuffer; also the small seeds the model-reader fuzzer starts
from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import flatbuffers
import tflite

INT8, INT4, RESOURCE = 9, 17, 13
RELU, VAR_HANDLE, CUSTOM = 19, 142, 32
PLACEHOLDER_FOR_GREATER_OP_CODES = 127


@dataclass
class Tensor:
    shape: Sequence[int]
    type: int
    buffer: int = 0


@dataclass
class Op:
    opcode: int
    inputs: Sequence[int]
    outputs: Sequence[int]


def _int_vector(b: flatbuffers.Builder, start, values: Sequence[int]) -> int:  # type: ignore[no-untyped-def]
    start(b, len(values))
    for v in reversed(values):
        b.PrependInt32(v)
    return int(b.EndVector())


def _offset_vector(b: flatbuffers.Builder, start, offsets: Sequence[int]) -> int:  # type: ignore[no-untyped-def]
    start(b, len(offsets))
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return int(b.EndVector())


def _subgraph(b: flatbuffers.Builder, tensors: Sequence[Tensor], ops: Sequence[Op],
              inputs: Sequence[int], outputs: Sequence[int]) -> int:  # fmt: skip
    tensor_offsets = []
    for t in tensors:
        shape = _int_vector(b, tflite.TensorStartShapeVector, t.shape)
        tflite.TensorStart(b)
        tflite.TensorAddShape(b, shape)
        tflite.TensorAddType(b, t.type)
        tflite.TensorAddBuffer(b, t.buffer)
        tensor_offsets.append(tflite.TensorEnd(b))
    op_offsets = []
    for op in ops:
        ins = _int_vector(b, tflite.OperatorStartInputsVector, op.inputs)
        outs = _int_vector(b, tflite.OperatorStartOutputsVector, op.outputs)
        tflite.OperatorStart(b)
        tflite.OperatorAddOpcodeIndex(b, op.opcode)
        tflite.OperatorAddInputs(b, ins)
        tflite.OperatorAddOutputs(b, outs)
        op_offsets.append(tflite.OperatorEnd(b))
    tensor_vec = _offset_vector(b, tflite.SubGraphStartTensorsVector, tensor_offsets)
    op_vec = _offset_vector(b, tflite.SubGraphStartOperatorsVector, op_offsets)
    in_vec = _int_vector(b, tflite.SubGraphStartInputsVector, inputs)
    out_vec = _int_vector(b, tflite.SubGraphStartOutputsVector, outputs)
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensor_vec)
    tflite.SubGraphAddOperators(b, op_vec)
    tflite.SubGraphAddInputs(b, in_vec)
    tflite.SubGraphAddOutputs(b, out_vec)
    return int(tflite.SubGraphEnd(b))


def build_model(external: tuple[int, int] | None = None) -> bytes:
    """Subgraph 0: VAR_HANDLE, then custom "MyOp"(input, <none>, int4 weights); subgraph 1: RELU
    and VAR_HANDLE. Buffer 1 holds 4 bytes, or with ``external`` (offset, size) lies outside."""
    b = flatbuffers.Builder(1024)
    codes = []
    for builtin, custom in ((VAR_HANDLE, None), (CUSTOM, "MyOp"), (RELU, None)):
        name = b.CreateString(custom) if custom else 0
        tflite.OperatorCodeStart(b)
        tflite.OperatorCodeAddDeprecatedBuiltinCode(
            b, min(builtin, PLACEHOLDER_FOR_GREATER_OP_CODES)
        )
        tflite.OperatorCodeAddBuiltinCode(b, builtin)
        tflite.OperatorCodeAddVersion(b, 2 if custom else 1)
        if name:
            tflite.OperatorCodeAddCustomCode(b, name)
        codes.append(tflite.OperatorCodeEnd(b))
    main = _subgraph(
        b,
        [Tensor([1, 4], INT8), Tensor([], RESOURCE), Tensor([2, 4], INT4, buffer=1),
         Tensor([1, 2], INT8)],
        [Op(0, [], [1]), Op(1, [0, -1, 2], [3])],
        inputs=[0],
        outputs=[3],
    )  # fmt: skip
    body = _subgraph(b, [Tensor([3], INT8), Tensor([], RESOURCE)],
                     [Op(2, [0], [0]), Op(0, [], [1])], inputs=[0], outputs=[0])  # fmt: skip
    data = b.CreateByteVector(bytes(4))
    buffers = []
    for i in range(2):
        tflite.BufferStart(b)
        if i == 1 and external is None:
            tflite.BufferAddData(b, data)
        if i == 1 and external is not None:
            tflite.BufferAddOffset(b, external[0])
            tflite.BufferAddSize(b, external[1])
        buffers.append(tflite.BufferEnd(b))
    code_vec = _offset_vector(b, tflite.ModelStartOperatorCodesVector, codes)
    subgraph_vec = _offset_vector(b, tflite.ModelStartSubgraphsVector, [main, body])
    buffer_vec = _offset_vector(b, tflite.ModelStartBuffersVector, buffers)
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, code_vec)
    tflite.ModelAddSubgraphs(b, subgraph_vec)
    tflite.ModelAddBuffers(b, buffer_vec)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def build_relu(shape: Sequence[int]) -> bytes:
    """One RELU from an int8 input of ``shape`` to an output of the same shape: a model of a
    few hundred bytes whose tensors may be as large as the shape says."""
    b = flatbuffers.Builder(256)
    tflite.OperatorCodeStart(b)
    tflite.OperatorCodeAddDeprecatedBuiltinCode(b, RELU)
    tflite.OperatorCodeAddBuiltinCode(b, RELU)
    tflite.OperatorCodeAddVersion(b, 1)
    code = tflite.OperatorCodeEnd(b)
    main = _subgraph(b, [Tensor(shape, INT8), Tensor(shape, INT8)], [Op(0, [0], [1])],
                     inputs=[0], outputs=[1])
    tflite.BufferStart(b)
    empty = tflite.BufferEnd(b)
    code_vec = _offset_vector(b, tflite.ModelStartOperatorCodesVector, [code])
    subgraph_vec = _offset_vector(b, tflite.ModelStartSubgraphsVector, [main])
    buffer_vec = _offset_vector(b, tflite.ModelStartBuffersVector, [empty])
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, code_vec)
    tflite.ModelAddSubgraphs(b, subgraph_vec)
    tflite.ModelAddBuffers(b, buffer_vec)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())
