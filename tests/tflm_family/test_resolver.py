"""The op resolver generated from the real KWS model's analysis."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hpx_tflm_family import (
    UPSTREAM_METHODS,
    parse_resolver_methods,
    resolver_source,
    select_ops,
)

from hpx_core.errors import ConfigError, ModelError
from hpx_core.reading import load_model

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def test_auto_selects_exactly_the_model_ops() -> None:
    model = load_model(KWS)
    ops = select_ops(model, "auto")
    assert ops == tuple(sorted({op.name for op in model.operators}))
    assert ops == ("AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED",
                   "RESHAPE", "SOFTMAX")


def test_generated_resolver_registers_each_op_once() -> None:
    model = load_model(KWS)
    source = resolver_source(select_ops(model), UPSTREAM_METHODS)
    calls = re.findall(r"r\.(Add\w+)\(\)", source)
    assert calls == ["AddAveragePool2D", "AddConv2D", "AddDepthwiseConv2D", "AddFullyConnected",
                     "AddReshape", "AddSoftmax"]


def test_configured_list_must_cover_the_model() -> None:
    model = load_model(KWS)
    with pytest.raises(ConfigError, match="SOFTMAX"):
        select_ops(model, ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "RESHAPE",
                           "AVERAGE_POOL_2D"))
    wider = select_ops(model, (*model.resolver_ops, "ADD"))
    assert "ADD" in wider and len(wider) == 7


def test_unknown_operator_is_a_model_error() -> None:
    with pytest.raises(ModelError, match="NOT_AN_OP"):
        resolver_source(("NOT_AN_OP",), UPSTREAM_METHODS)


def test_header_parser_reads_add_methods() -> None:
    header = """
  TfLiteStatus AddConv2D(
      const TFLMRegistration& registration = Register_CONV_2D()) {
    return AddBuiltin(BuiltinOperator_CONV_2D, registration, ParseConv2D);
  }
  TfLiteStatus AddFoo(const TFLMRegistration& registration =
                          tflite::Register_FOO()) {
    return AddBuiltin(BuiltinOperator_FOO_BAR, registration,
                      ParseFoo);
  }
"""
    assert parse_resolver_methods(header) == {"CONV_2D": "AddConv2D", "FOO_BAR": "AddFoo"}
