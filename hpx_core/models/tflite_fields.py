"""Fields older TFLite converters leave empty that engines' tools read, and a copy that has them.

TOCO-era converters (TensorFlow 1.x and early 2.x) leave subgraph 0 without a name, and files
older than TensorFlow 2.4 hold operator codes only in the int8 ``deprecated_builtin_code``. A
compiler that builds its graph from the file may require the name (the MLIR converter writes
``main``); TFLite Micro and its forks read ``builtin_code`` alone when they plan the memory of
control-flow subgraphs, so an old IF or WHILE would lose its subgraphs' lifetimes (everywhere
else they take the larger of the two codes). An engine lists the fields its tools need on its
descriptor (``EngineDescriptor.model_fields``); hpx then hands it a corrected copy of the model
and never changes the user's file.

The copy is made with TFLite Micro's own schema classes (unpack, fill in, pack) and re-aligned
by its C++ packer, which honours the schema's 16-byte alignment of weight buffers.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hpx_core.errors import ModelError, PluginError

SUBGRAPH_NAME = "subgraphs[0].name"
"""The name of the subgraph that runs as the model."""
CONTROL_FLOW_CODE = "operator_codes[IF,WHILE].builtin_code"
"""The int32 code of a control-flow operator; older files hold only ``deprecated_builtin_code``."""
KNOWN_FIELDS = (SUBGRAPH_NAME, CONTROL_FLOW_CODE)

SUBGRAPH_NAME_SUPPLIED = "main"
"""What hpx writes into an empty subgraph name: the name the MLIR converter gives it."""

_BUILTIN_CODE_SLOT = 10  # vtable offset of OperatorCode.builtin_code (field 3)
_CONTROL_FLOW = frozenset({118, 119})  # BuiltinOperator IF, WHILE (CALL_ONCE is > 127)
_IDENTIFIER = b"TFL3"


def absent_fields(model: Any) -> tuple[str, ...]:
    """The :data:`KNOWN_FIELDS` a parsed ``tflite.Model`` leaves empty."""
    absent = []
    if not model.Subgraphs(0).Name():
        absent.append(SUBGRAPH_NAME)
    codes = (model.OperatorCodes(i) for i in range(model.OperatorCodesLength()))
    # The ``tflite`` package's BuiltinCode() falls back to the deprecated field, so look at
    # the table itself: is the slot there at all?
    if any(code._tab.Offset(_BUILTIN_CODE_SLOT) == 0
           and code.DeprecatedBuiltinCode() in _CONTROL_FLOW for code in codes):
        absent.append(CONTROL_FLOW_CODE)
    return tuple(absent)


def check_fields(fields: Iterable[str]) -> tuple[str, ...]:
    """``fields`` when hpx knows how to supply each; a PluginError names one it does not."""
    fields = tuple(fields)
    unknown = [field for field in fields if field not in KNOWN_FIELDS]
    if unknown:
        raise PluginError(
            f"hpx cannot supply the model field {unknown[0]!r}",
            f"an engine may name these model fields: {', '.join(KNOWN_FIELDS)}",
        )
    return fields


def write_with_fields(source: Path, fields: Iterable[str], dest: Path) -> None:
    """Write ``source`` to ``dest`` with ``fields`` filled in; ``source`` is only read."""
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    data = source.read_bytes()
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAs(data, 0))
    if any(buffer.offset > 1 for buffer in model.buffers or ()):
        raise ModelError(
            f"{source.name} keeps its weights outside the flatbuffer, and hpx cannot copy such "
            f"a model to supply {', '.join(fields)}",
            "re-export the model with a current converter (it writes these fields)",
        )
    for field in check_fields(fields):
        _FILL[field](model)
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".hpx-model-", dir=dest.parent) as temp:
        packed, aligned = Path(temp) / "packed.tflite", Path(temp) / dest.name
        packed.write_bytes(_pack(model))
        _align(packed, aligned)
        aligned.replace(dest)


def _fill_subgraph_name(model: Any) -> None:
    if not model.subgraphs[0].name:
        model.subgraphs[0].name = SUBGRAPH_NAME_SUPPLIED


def _fill_control_flow_codes(model: Any) -> None:
    for code in model.operatorCodes or ():
        if code.builtinCode == 0 and code.deprecatedBuiltinCode in _CONTROL_FLOW:
            code.builtinCode = code.deprecatedBuiltinCode


_FILL = {SUBGRAPH_NAME: _fill_subgraph_name, CONTROL_FLOW_CODE: _fill_control_flow_codes}


def _pack(model: Any) -> bytes:
    import flatbuffers

    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=_IDENTIFIER)
    return bytes(builder.Output())


def _align(packed: Path, aligned: Path) -> None:
    """Re-pack with the C++ builder: Python's ignores ``force_align: 16`` on weight buffers."""
    from tflite_micro.tensorflow.lite.micro.tools import tflite_flatbuffer_align_wrapper

    tflite_flatbuffer_align_wrapper.align_tflite_model(str(packed), str(aligned))
