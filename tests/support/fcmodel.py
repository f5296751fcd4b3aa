"""A runnable int8 model of any size: one FULLY_CONNECTED layer, written with the ``tflite``
flatbuffer schema package (no TensorFlow).

The weight matrix sets the file size (``inputs * outputs`` bytes), so a test can make a model
that does not fit a board's code memory; its values are a fixed pseudo-random pattern, so the
host reference and the device compute the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence

import flatbuffers
import numpy as np
import tflite

INT8, INT32 = 9, 2
FULLY_CONNECTED = 9


def _vector(b: flatbuffers.Builder, start, values: Sequence[int], prepend) -> int:  # type: ignore[no-untyped-def]
    start(b, len(values))
    for value in reversed(values):
        prepend(value)
    return int(b.EndVector())


def _ints(b: flatbuffers.Builder, start, values: Sequence[int]) -> int:  # type: ignore[no-untyped-def]
    return _vector(b, start, values, b.PrependInt32)


def _offsets(b: flatbuffers.Builder, start, values: Sequence[int]) -> int:  # type: ignore[no-untyped-def]
    return _vector(b, start, values, b.PrependUOffsetTRelative)


def _quantization(b: flatbuffers.Builder, scale: float, zero_point: int) -> int:
    scales = _vector(b, tflite.QuantizationParametersStartScaleVector, [scale], b.PrependFloat32)
    points = _vector(b, tflite.QuantizationParametersStartZeroPointVector, [zero_point],
                     b.PrependInt64)
    tflite.QuantizationParametersStart(b)
    tflite.QuantizationParametersAddScale(b, scales)
    tflite.QuantizationParametersAddZeroPoint(b, points)
    return int(tflite.QuantizationParametersEnd(b))


def _tensor(b: flatbuffers.Builder, name: str, shape: Sequence[int], dtype: int, buffer: int,
            scale: float, zero_point: int) -> int:  # fmt: skip
    label = b.CreateString(name)
    dims = _ints(b, tflite.TensorStartShapeVector, shape)
    quant = _quantization(b, scale, zero_point)
    tflite.TensorStart(b)
    tflite.TensorAddName(b, label)
    tflite.TensorAddShape(b, dims)
    tflite.TensorAddType(b, dtype)
    tflite.TensorAddBuffer(b, buffer)
    tflite.TensorAddQuantization(b, quant)
    return int(tflite.TensorEnd(b))


def _buffer(b: flatbuffers.Builder, data: bytes | None) -> int:
    content = b.CreateByteVector(data) if data else 0
    tflite.BufferStart(b)
    if content:
        tflite.BufferAddData(b, content)
    return int(tflite.BufferEnd(b))


def fully_connected_model(inputs: int, outputs: int, seed: int = 7) -> bytes:
    """An int8 ``[1, inputs] -> [1, outputs]`` fully connected model (about inputs x outputs
    bytes of weights)."""
    rng = np.random.default_rng(seed)
    weights = rng.integers(-127, 128, size=(outputs, inputs), dtype=np.int8).tobytes()
    bias = rng.integers(-2000, 2000, size=outputs, dtype=np.int32).astype("<i4").tobytes()
    in_scale, w_scale = 0.05, 0.01
    out_scale = in_scale * w_scale * np.sqrt(inputs) * 256  # outputs spread over int8
    b = flatbuffers.Builder(len(weights) + 4096)
    buffers = [_buffer(b, None), _buffer(b, weights), _buffer(b, bias)]
    tensors = [
        _tensor(b, "input", [1, inputs], INT8, 0, in_scale, -3),
        _tensor(b, "weights", [outputs, inputs], INT8, 1, w_scale, 0),
        _tensor(b, "bias", [outputs], INT32, 2, in_scale * w_scale, 0),
        _tensor(b, "output", [1, outputs], INT8, 0, float(out_scale), 5),
    ]
    op_inputs = _ints(b, tflite.OperatorStartInputsVector, [0, 1, 2])
    op_outputs = _ints(b, tflite.OperatorStartOutputsVector, [3])
    tflite.FullyConnectedOptionsStart(b)
    options = tflite.FullyConnectedOptionsEnd(b)
    tflite.OperatorStart(b)
    tflite.OperatorAddOpcodeIndex(b, 0)
    tflite.OperatorAddInputs(b, op_inputs)
    tflite.OperatorAddOutputs(b, op_outputs)
    tflite.OperatorAddBuiltinOptionsType(b, tflite.BuiltinOptions.FullyConnectedOptions)
    tflite.OperatorAddBuiltinOptions(b, options)
    operator = tflite.OperatorEnd(b)
    tensor_vec = _offsets(b, tflite.SubGraphStartTensorsVector, tensors)
    op_vec = _offsets(b, tflite.SubGraphStartOperatorsVector, [operator])
    in_vec = _ints(b, tflite.SubGraphStartInputsVector, [0])
    out_vec = _ints(b, tflite.SubGraphStartOutputsVector, [3])
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensor_vec)
    tflite.SubGraphAddOperators(b, op_vec)
    tflite.SubGraphAddInputs(b, in_vec)
    tflite.SubGraphAddOutputs(b, out_vec)
    subgraph = tflite.SubGraphEnd(b)
    tflite.OperatorCodeStart(b)
    tflite.OperatorCodeAddDeprecatedBuiltinCode(b, FULLY_CONNECTED)
    tflite.OperatorCodeAddBuiltinCode(b, FULLY_CONNECTED)
    tflite.OperatorCodeAddVersion(b, 4)
    code = tflite.OperatorCodeEnd(b)
    codes = _offsets(b, tflite.ModelStartOperatorCodesVector, [code])
    subgraphs = _offsets(b, tflite.ModelStartSubgraphsVector, [subgraph])
    buffer_vec = _offsets(b, tflite.ModelStartBuffersVector, buffers)
    description = b.CreateString("hpx test: one fully connected layer")
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, codes)
    tflite.ModelAddSubgraphs(b, subgraphs)
    tflite.ModelAddDescription(b, description)
    tflite.ModelAddBuffers(b, buffer_vec)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())
