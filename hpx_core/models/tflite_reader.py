"""Read a ``.tflite`` flatbuffer with the ``tflite`` package's generated schema classes.

Only subgraph 0 runs as the model (the TFLite format's convention); other subgraphs are bodies
of control flow and contribute to the op resolver, weight bytes and resource-variable count.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import attrs
import tflite
from tflite.BuiltinOperator import BuiltinOperator
from tflite.BuiltinOptions import BuiltinOptions
from tflite.utils import BUILTIN_OPCODE2NAME

from hpx_core.errors import ModelError
from hpx_core.models.guard import MALFORMED, Budget, malformed
from hpx_core.models.info import ModelInfo, Operator, Quantization, TensorInfo
from hpx_core.models.macs import tflite_macs, tflite_params
from hpx_core.models.tflite_fields import absent_fields

IDENTIFIER = b"TFL3"
KIND = "TFLite model"

# TensorType -> (name, bits per element); None bits: no fixed size (strings, resources).
_DTYPES: dict[int, tuple[str, int | None]] = {
    0: ("float32", 32), 1: ("float16", 16), 2: ("int32", 32), 3: ("uint8", 8),
    4: ("int64", 64), 5: ("string", None), 6: ("bool", 8), 7: ("int16", 16),
    8: ("complex64", 64), 9: ("int8", 8), 10: ("float64", 64), 11: ("complex128", 128),
    12: ("uint64", 64), 13: ("resource", None), 14: ("variant", None), 15: ("uint32", 32),
    16: ("uint16", 16), 17: ("int4", 4), 18: ("bfloat16", 16),
}  # fmt: skip


@attrs.frozen
class _Tensor:
    info: TensorInfo
    buffer: int
    constant: bool


def read_tflite(data: bytes, path: Path, sha256: str) -> ModelInfo:
    """Parse a TFLite model; any structural damage becomes a :class:`ModelError`."""
    if len(data) < 8 or data[4:8] != IDENTIFIER:
        raise ModelError(
            f"{path.name}: not a TFLite model (no 'TFL3' identifier at byte 4)",
            hint="pass a .tflite flatbuffer written by the TFLite/LiteRT converter",
        )
    try:
        return _read(data, path, sha256)
    except ModelError:
        raise
    except MALFORMED as exc:
        raise malformed(path.name, KIND, type(exc).__name__) from exc


def _read(data: bytes, path: Path, sha256: str) -> ModelInfo:
    budget = Budget(len(data), path.name, KIND)
    model = tflite.Model.GetRootAs(data, 0)
    codes = [
        _opcode(model.OperatorCodes(i)) for i in range(budget.count(model.OperatorCodesLength()))
    ]
    buffer_sizes = [
        _buffer_size(model.Buffers(i), len(data), path.name)
        for i in range(budget.count(model.BuffersLength()))
    ]
    n_subgraphs = budget.count(model.SubgraphsLength())
    if n_subgraphs == 0:
        raise ModelError(
            f"{path.name}: the TFLite model has no subgraph",
            hint="re-export the model; a runnable model has at least one subgraph",
        )
    graphs = [_subgraph(model.Subgraphs(s), codes, buffer_sizes, budget, path.name)
              for s in range(n_subgraphs)]  # fmt: skip
    ops, tensors = graphs[0]
    inputs = _graph_io(model.Subgraphs(0), "Inputs", tensors, budget, path.name)
    outputs = _graph_io(model.Subgraphs(0), "Outputs", tensors, budget, path.name)
    weight_buffers = {t.buffer for _ops, graph in graphs for t in graph if t.constant}
    all_ops = [op.name for graph_ops, _tensors in graphs for op in graph_ops]
    return ModelInfo(
        format="tflite",
        path=path,
        sha256=sha256,
        size_bytes=len(data),
        operators=ops,
        inputs=inputs,
        outputs=outputs,
        weight_bytes=sum(buffer_sizes[b] for b in weight_buffers),
        resolver_ops=sorted(set(all_ops)),
        var_handle_count=all_ops.count("VAR_HANDLE"),
        subgraph_count=n_subgraphs,
        absent_fields=absent_fields(model),
    )


def _subgraph(
    subgraph: Any, codes: list[tuple[str, int]], buffer_sizes: list[int], budget: Budget, name: str
) -> tuple[list[Operator], list[_Tensor]]:
    tensors = _tensors(subgraph, buffer_sizes, budget, name)
    return _operators(subgraph, codes, tensors, budget, name), tensors


def _graph_io(
    subgraph: Any, field: str, tensors: list[_Tensor], budget: Budget, name: str
) -> list[TensorInfo]:
    indices = _indices(subgraph, field, len(tensors), name, budget, optional=False)
    return [tensors[i].info for i in indices]


def _opcode(code: Any) -> tuple[str, int]:
    """(operator name, version); the larger of the two builtin-code fields is the real one."""
    builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
    if builtin == BuiltinOperator.CUSTOM:
        custom = code.CustomCode()
        name = custom.decode("utf-8", "replace") if custom else "CUSTOM"
    else:
        name = BUILTIN_OPCODE2NAME.get(builtin, f"BUILTIN_{builtin}")
    return name, int(code.Version())


def _buffer_size(buffer: Any, file_size: int, name: str) -> int:
    """Bytes of constant data; large models keep it outside the flatbuffer (offset/size)."""
    if buffer is None:
        return 0
    if buffer.Offset() > 1:
        end = int(buffer.Offset()) + int(buffer.Size())
        if end > file_size:
            raise ModelError(
                f"{name}: truncated TFLite model: a weight buffer ends at byte {end}, "
                f"the file has {file_size}",
                hint="the file was cut short; copy or re-export it again",
            )
        return int(buffer.Size())
    if not buffer.DataLength():
        return 0
    # a view into the file: numpy refuses (ValueError) a vector that runs past the end
    return len(buffer.DataAsNumpy())


def _vector(obj: Any, field: str, budget: Budget) -> list[int]:
    """An int vector field (e.g. ``Shape``) as Python ints, budgeted."""
    n = budget.count(int(getattr(obj, f"{field}Length")()))
    if n == 0:
        return []
    return [int(v) for v in getattr(obj, f"{field}AsNumpy")()[:n]]


def _indices(
    owner: Any, field: str, count: int, name: str, budget: Budget, optional: bool = True
) -> list[int]:
    """Tensor indices; -1 marks an omitted optional operator input."""
    values = _vector(owner, field, budget)
    for v in values:
        if not (-1 if optional else 0) <= v < count:
            raise ModelError(
                f"{name}: tensor index {v} out of range (0..{count - 1})",
                hint="the model file is damaged; re-export it",
            )
    return values


def _tensors(subgraph: Any, buffer_sizes: list[int], budget: Budget, name: str) -> list[_Tensor]:
    out = []
    for i in range(budget.count(subgraph.TensorsLength())):
        tensor = subgraph.Tensors(i)
        shape = tuple(_vector(tensor, "Shape", budget))
        if any(d < 0 for d in shape):  # -1 belongs in shape_signature, never in shape
            raise ModelError(f"{name}: tensor {i} has a negative dimension (shape {list(shape)})",
                             hint="the model file is damaged; re-export it")
        dtype, bits = _DTYPES.get(tensor.Type(), (f"tensor_type_{tensor.Type()}", None))
        buffer = int(tensor.Buffer())
        if buffer >= len(buffer_sizes):
            raise ModelError(
                f"{name}: tensor {i} refers to missing buffer {buffer}",
                hint="the model file is damaged; re-export it",
            )
        raw = tensor.Name()
        info = TensorInfo(
            name=raw.decode("utf-8", "replace") if raw else f"tensor{i}",
            dtype=dtype,
            shape=shape,
            size_bytes=None if bits is None else math.ceil(_numel(shape) * bits / 8),
            quantization=_quantization(tensor.Quantization(), budget),
        )
        out.append(_Tensor(info, buffer, buffer > 0 and buffer_sizes[buffer] > 0))
    return out


def _numel(shape: tuple[int, ...]) -> int:
    return math.prod(max(d, 0) for d in shape)


def _quantization(q: Any, budget: Budget) -> Quantization | None:
    if q is None:
        return None
    n = budget.count(int(q.ScaleLength()))
    if n == 0:
        return None
    scales = [float(s) for s in q.ScaleAsNumpy()[:n]]
    zero_points = _vector(q, "ZeroPoint", budget)
    return Quantization(scales=scales, zero_points=zero_points, axis=int(q.QuantizedDimension()))


def _operators(
    subgraph: Any, codes: list[tuple[str, int]], tensors: list[_Tensor], budget: Budget, name: str
) -> list[Operator]:
    ops = []
    for index in range(budget.count(subgraph.OperatorsLength())):
        op = subgraph.Operators(index)
        code = int(op.OpcodeIndex())
        if code >= len(codes):
            raise ModelError(
                f"{name}: operator {index} uses undefined opcode {code}",
                hint="the model file is damaged; re-export it",
            )
        op_name, version = codes[code]
        ins = _indices(op, "Inputs", len(tensors), name, budget)
        outs = [i for i in _indices(op, "Outputs", len(tensors), name, budget) if i >= 0]
        in_shapes = [tensors[i].info.shape if i >= 0 else None for i in ins]
        out_shapes = [tensors[i].info.shape for i in outs]
        constants = [
            (pos, tensors[i].info.shape)
            for pos, i in enumerate(ins)
            if i >= 0 and tensors[i].constant
        ]
        ops.append(
            Operator(
                index=index,
                name=op_name,
                version=version,
                inputs=[s for s in in_shapes if s is not None],
                outputs=out_shapes,
                macs=tflite_macs(op_name, in_shapes, out_shapes, _pool_filter(op)),
                params=tflite_params(op_name, constants),
            )
        )
    return ops


def _pool_filter(op: Any) -> tuple[int, int] | None:
    if op.BuiltinOptionsType() != BuiltinOptions.Pool2DOptions:
        return None
    table = op.BuiltinOptions()
    if table is None:
        return None
    options = tflite.Pool2DOptions()
    options.Init(table.Bytes, table.Pos)
    return int(options.FilterHeight()), int(options.FilterWidth())
