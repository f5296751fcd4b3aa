"""TFLite features the MLPerf Tiny models lack, on small models written with the schema's Builder.

Resource variables, control-flow subgraphs, custom operators, optional inputs, int4 weights
and weights stored outside the flatbuffer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tflitebuild import build_model

from hpx_core.errors import ModelError
from hpx_core.reading import read_model_bytes


def test_variables_subgraphs_custom_ops() -> None:
    info = read_model_bytes(build_model(), Path("features.tflite"))
    assert [(op.name, op.version) for op in info.operators] == [("VAR_HANDLE", 1), ("MyOp", 2)]
    assert info.subgraph_count == 2
    assert info.var_handle_count == 2  # one per subgraph
    assert info.resolver_ops == ("MyOp", "RELU", "VAR_HANDLE")  # the body's RELU included
    custom = info.operators[1]
    assert custom.inputs == ((1, 4), (2, 4))  # the omitted optional input (-1) is left out
    assert custom.macs is None  # no rule for a custom operator
    assert custom.params == 8
    assert info.weight_bytes == 4
    assert [(t.dtype, t.size_bytes) for t in info.inputs + info.outputs] == [
        ("int8", 4), ("int8", 2),
    ]  # fmt: skip


def test_resource_handle_is_a_scalar() -> None:
    info = read_model_bytes(build_model(), Path("features.tflite"))
    assert info.operators[0].outputs == ((),)


def test_external_weights_inside_and_past_the_file() -> None:
    size = len(build_model(external=(64, 4)))
    info = read_model_bytes(build_model(external=(size - 4, 4)), Path("ext.tflite"))
    assert info.weight_bytes == 4
    with pytest.raises(ModelError, match="truncated") as err:
        read_model_bytes(build_model(external=(size, 4096)), Path("ext.tflite"))
    assert "cut short" in err.value.hint
