"""Models as the core reads them (the records an engine's reader answers and its tools take),
the model fields older converters leave empty, and the limits a reader of an untrusted file
keeps (a budget of elements, the exceptions that mean the file is malformed, the error that
says so), with the shape helpers MAC rules count with."""

from __future__ import annotations

from hpx_core.models import ModelInfo, Operator, Quantization, TensorInfo
from hpx_core.models.guard import MALFORMED, Budget, malformed
from hpx_core.models.macs import Shape, numel
from hpx_core.models.tflite_fields import CONTROL_FLOW_CODE, SUBGRAPH_NAME

__all__ = [
    "CONTROL_FLOW_CODE",
    "MALFORMED",
    "SUBGRAPH_NAME",
    "Budget",
    "ModelInfo",
    "Operator",
    "Quantization",
    "Shape",
    "TensorInfo",
    "malformed",
    "numel",
]
