"""Small edits of real .tflite models for tests (the tflite-micro package's schema object API)."""

from __future__ import annotations

from pathlib import Path

import flatbuffers
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema


def with_custom_op(model: Path, layer: int, name: str = "HpxNoSuchOp") -> bytes:
    """``model`` with layer ``layer``'s operator replaced by a custom op no interpreter has."""
    data = model.read_bytes()
    edited = schema.ModelT.InitFromObj(schema.Model.GetRootAs(data, 0))
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    code.customCode = name
    code.version = 1
    edited.operatorCodes.append(code)
    edited.subgraphs[0].operators[layer].opcodeIndex = len(edited.operatorCodes) - 1
    builder = flatbuffers.Builder(len(data) + 1024)
    builder.Finish(edited.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def with_output_quantization(model: Path, layer: int, scale: float, zero_point: int,
                             tensor_type: int | None = None) -> bytes:
    """``model`` with layer ``layer``'s output tensor quantized as given (and of
    ``tensor_type``, a TFLite TensorType, when given): a real model a kernel's Prepare may
    refuse."""
    data = model.read_bytes()
    edited = schema.ModelT.InitFromObj(schema.Model.GetRootAs(data, 0))
    graph = edited.subgraphs[0]
    tensor = graph.tensors[graph.operators[layer].outputs[0]]
    tensor.quantization.scale = [scale]
    tensor.quantization.zeroPoint = [zero_point]
    if tensor_type is not None:
        tensor.type = tensor_type
    builder = flatbuffers.Builder(len(data) + 1024)
    builder.Finish(edited.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())
