"""Models as older converters (or damaged files) have them, made from the MLPerf Tiny models.

Each helper unpacks a real model with TFLite Micro's schema classes, changes one thing, packs
it with the flatbuffers builder and re-aligns it with TFLite Micro's C++ packer (so weight
buffers keep their 16-byte alignment and the copy still runs on an MVE core).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flatbuffers
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
from tflite_micro.tensorflow.lite.micro.tools import tflite_flatbuffer_align_wrapper

MLPERF_TINY = Path(__file__).resolve().parents[2] / "examples" / "models" / "mlperf_tiny"
WHILE = 119  # BuiltinOperator.WHILE


def edited(source: Path, dest: Path, edit: Callable[[Any], None]) -> Path:
    """``dest``: ``source`` unpacked, changed by ``edit(model)``, packed and aligned."""
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAs(source.read_bytes(), 0))
    edit(model)
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as temp:
        packed = Path(temp) / "packed.tflite"
        packed.write_bytes(bytes(builder.Output()))
        tflite_flatbuffer_align_wrapper.align_tflite_model(str(packed), str(dest))
    return dest


def toco_style(source: Path, dest: Path) -> Path:
    """``source`` with subgraph 0's name removed, as TOCO-era converters leave it."""

    def unname(model: Any) -> None:
        model.subgraphs[0].name = None

    return edited(source, dest, unname)


def with_tensor_name(source: Path, dest: Path, tensor: int, name: bytes) -> Path:
    """``source`` with tensor ``tensor`` of subgraph 0 renamed to the raw bytes ``name``."""

    def rename(model: Any) -> None:
        model.subgraphs[0].tensors[tensor].name = name

    return edited(source, dest, rename)


def with_old_while_code(source: Path, dest: Path) -> Path:
    """``source`` with one more operator code, WHILE, written as a pre-2.4 converter did:
    only ``deprecated_builtin_code`` (no operator uses it, so the model still runs)."""

    def add_code(model: Any) -> None:
        code = schema.OperatorCodeT()
        code.deprecatedBuiltinCode, code.builtinCode, code.version = WHILE, 0, 1
        model.operatorCodes.append(code)

    return edited(source, dest, add_code)


def raw_builtin_codes(path: Path) -> list[tuple[int, int]]:
    """(``builtin_code``, ``deprecated_builtin_code``) of each operator code, as stored."""
    model = schema.Model.GetRootAs(path.read_bytes(), 0)
    codes = (model.OperatorCodes(i) for i in range(model.OperatorCodesLength()))
    return [(code.BuiltinCode(), code.DeprecatedBuiltinCode()) for code in codes]


def subgraph_name(path: Path) -> bytes | None:
    name: bytes | None = schema.Model.GetRootAs(path.read_bytes(), 0).Subgraphs(0).Name()
    return name


def buffer_offsets(path: Path) -> list[int]:
    """File offsets of every non-empty weight buffer's bytes (the data vector's start)."""
    model = schema.Model.GetRootAs(path.read_bytes(), 0)
    buffers = (model.Buffers(i) for i in range(model.BuffersLength()))
    return [int(b._tab.Vector(b._tab.Offset(4))) for b in buffers if b.DataLength()]
