"""Every layer's outputs on the host: the ``tflite-micro`` interpreter with all tensors kept.

The same model and input bytes as the firmware go through ``tflite_micro``'s Python
interpreter built with ``kPreserveAllTensors``; ``GetTensor`` then gives each operator's output
(and input) tensors as TFLM computed them, which is what the device runs. An operator the host
cannot run stops the reference before it: the longest prefix of the model that runs is found
by running truncated copies of the model, so the layers before it are still checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import attrs
import flatbuffers
import numpy as np

from hpx_core.sdk import LayerReference, ReferenceLayer, ReferenceTensor, ResultsError
from hpx_core.sdk.models import ModelInfo

SOURCE = "tflite-micro Python interpreter (kPreserveAllTensors), same model and input bytes"
# TFLite TensorType -> numpy dtype name (the element types the layer check reads).
DTYPES = {0: "float32", 2: "int32", 3: "uint8", 7: "int16", 9: "int8"}


@attrs.frozen
class TensorMeta:
    """A subgraph tensor as the flatbuffer declares it."""

    index: int
    dtype: str
    shape: tuple[int, ...]
    constant: bool
    scale: float | None
    zero_point: int | None

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(_numpy(self.dtype)).itemsize


@attrs.frozen
class LayerIO:
    """One operator of subgraph 0: its output tensors and its non-constant input tensors."""

    index: int
    op: str
    outputs: tuple[TensorMeta, ...]
    inputs: tuple[TensorMeta, ...]


def _numpy(dtype: str) -> str:
    return "uint8" if dtype == "raw" else dtype


def _schema() -> object:
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated

    return schema_py_generated


def _tensor(schema: object, sg: object, buffers: object, index: int) -> TensorMeta:
    t = sg.Tensors(index)  # type: ignore[attr-defined]
    buffer = buffers(t.Buffer())  # type: ignore[operator]
    quant = t.Quantization()
    scale = zero = None
    if quant is not None and quant.ScaleLength() == 1:
        scale, zero = float(quant.Scale(0)), int(quant.ZeroPoint(0))
    return TensorMeta(index, DTYPES.get(t.Type(), "raw"), tuple(int(d) for d in t.ShapeAsNumpy())
                      if t.ShapeLength() else (), buffer is not None and buffer.DataLength() > 0,
                      scale, zero)


def layer_io(model_data: bytes) -> tuple[LayerIO, ...]:
    """Each operator's output tensors and non-constant inputs, from the flatbuffer."""
    schema = _schema()
    model = schema.Model.GetRootAs(model_data, 0)  # type: ignore[attr-defined]
    sg = model.Subgraphs(0)
    layers = []
    for i in range(sg.OperatorsLength()):
        op = sg.Operators(i)
        code = model.OperatorCodes(op.OpcodeIndex())
        name = _op_name(schema, max(code.BuiltinCode(), code.DeprecatedBuiltinCode()))
        outs = [int(t) for t in op.OutputsAsNumpy()] if op.OutputsLength() else []
        ins = [int(t) for t in op.InputsAsNumpy()] if op.InputsLength() else []
        metas_in = [_tensor(schema, sg, model.Buffers, t) for t in ins if t >= 0]
        layers.append(LayerIO(i, name,
                              tuple(_tensor(schema, sg, model.Buffers, t) for t in outs),
                              tuple(m for m in metas_in if not m.constant)))
    return tuple(layers)


def _op_name(schema: object, code: int) -> str:
    names = _op_names(schema)
    return names.get(code, f"OP_{code}")


@cache
def _op_names(schema: object) -> dict[int, str]:
    ops = schema.BuiltinOperator  # type: ignore[attr-defined]
    return {v: k for k, v in vars(ops).items() if not k.startswith("_")}


def _prefix(model_data: bytes, count: int, io: Sequence[LayerIO]) -> bytes:
    """The model cut after its first ``count`` operators; their last's outputs are outputs."""
    schema = _schema()
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAs(model_data, 0))  # type: ignore[attr-defined]
    sg = model.subgraphs[0]
    sg.operators = sg.operators[:count]
    sg.outputs = [t.index for t in io[count - 1].outputs]
    builder = flatbuffers.Builder(len(model_data) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def _run(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo) -> object:
    from tflite_micro.python.tflite_micro import runtime

    interpreter = runtime.Interpreter.from_bytes(
        model_data, intrepreter_config=runtime.InterpreterConfig.kPreserveAllTensors)
    for index, (data, tensor) in enumerate(zip(inputs, model.inputs, strict=True)):
        array = np.frombuffer(data, dtype=np.dtype(tensor.dtype)).reshape(tensor.shape)
        interpreter.set_input(array, index)
    interpreter.invoke()
    return interpreter


def _runs(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo) -> str | None:
    """None when the model runs on the host, else the interpreter's complaint."""
    try:
        _run(model_data, inputs, model)
    except (RuntimeError, ValueError) as error:
        return str(error) or type(error).__name__
    return None


def _runnable_prefix(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo,
                     io: Sequence[LayerIO], error: str) -> tuple[int, str]:
    """How many leading layers the host runs, and why the next one stops it (bisection)."""
    good, bad, reason = 0, len(io), error
    while bad - good > 1:
        middle = (good + bad) // 2
        failure = _runs(_prefix(model_data, middle, io), inputs, model)
        if failure is None:
            good = middle
        else:
            bad, reason = middle, failure
    return good, reason


def _reference_tensor(interpreter: object, meta: TensorMeta) -> ReferenceTensor:
    found = interpreter.GetTensor(meta.index, 0)  # type: ignore[attr-defined]
    array = np.ascontiguousarray(found["tensor_data"])
    return ReferenceTensor(meta.index, meta.dtype, meta.shape, array.tobytes(), meta.scale,
                           meta.zero_point)


def layer_reference(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo
                    ) -> LayerReference:
    """Every layer's outputs (and non-constant inputs) on the host, for ``inputs``."""
    try:
        import tflite_micro  # noqa: F401
    except ImportError as exc:  # pragma: no cover - a dependency of hpx-core
        raise ResultsError("the tflite-micro Python package is not installed",
                           "pip install tflite-micro") from exc
    io = layer_io(model_data)
    data, count, stopped = model_data, len(io), None
    failure = _runs(model_data, inputs, model)
    if failure is not None:
        count, reason = _runnable_prefix(model_data, inputs, model, io, failure)
        stopped = (f"the host interpreter cannot run layer {count} ({io[count].op}): "
                   f"{reason.strip().splitlines()[0]}")
        data = _prefix(model_data, count, io) if count else b""
    if count == 0:
        return LayerReference(SOURCE, (), stopped)
    interpreter = _run(data, inputs, model)
    layers = tuple(
        ReferenceLayer(layer.index, tuple(_reference_tensor(interpreter, m) for m in layer.outputs),
                       tuple(_reference_tensor(interpreter, m) for m in layer.inputs))
        for layer in io[:count])
    return LayerReference(SOURCE, layers, stopped)
