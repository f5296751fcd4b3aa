"""A model analysis as plain JSON-ready data (the ``hpx analyze --json`` document)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

import attrs

from hpx_core.models.info import ModelInfo


def _plain(_inst: object, _field: object, value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    return value


def model_report(info: ModelInfo) -> dict[str, Any]:
    """Every field of the analysis; operators become ``layers``, with totals beside them."""
    doc = attrs.asdict(info, value_serializer=_plain)
    layers = doc.pop("operators")
    for layer, op in zip(layers, info.operators, strict=True):
        layer["qualified_name"] = op.qualified_name
    doc["layers"] = layers
    doc["totals"] = {
        "layers": len(info.operators),
        "macs": info.total_macs,
        "macs_not_counted": [op.index for op in info.operators if op.macs is None],
        "params": info.total_params,
        "input_bytes": info.input_bytes,
        "output_bytes": info.output_bytes,
    }
    if any(op.namespace is not None for op in info.operators):  # a format with namespaces
        doc["namespaces"] = info.namespaces()
        doc["planned_arena_bytes"] = info.planned_arena_bytes
    return doc
