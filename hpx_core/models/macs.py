"""Multiply-accumulate and parameter arithmetic of TFLite operators from tensor shapes.

One rule per operator family, written so it can be checked by hand against the layer shapes.
An operator without a rule gets ``None``: hpx reports "not counted", never a guess.

Conventions (TFLite layouts: activations NHWC, CONV_2D filter [Cout, kh, kw, Cin/groups],
DEPTHWISE_CONV_2D filter [1, kh, kw, Cout], FULLY_CONNECTED weights [units, in]):

- CONV_2D: every output element accumulates kh*kw*Cin/groups products.
- DEPTHWISE_CONV_2D: every output element accumulates kh*kw products.
- FULLY_CONNECTED: every output element accumulates ``in`` products.
- TRANSPOSE_CONV: every input element is scattered into kh*kw*Cout products.
- pooling: every output element reads kh*kw inputs (one accumulate or compare each).
- reductions (MEAN, SUM, ...): one accumulate per input element.
- element-wise operators: one operation per output element.
- pure data movement (RESHAPE, PAD, CONCATENATION, ...): zero.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

Shape = tuple[int, ...]

ELEMENTWISE = frozenset(
    {
        "ABS", "ADD", "DEQUANTIZE", "DIV", "ELU", "EXP", "FLOOR", "GELU", "HARD_SWISH",
        "LEAKY_RELU", "LOG", "LOGISTIC", "MAXIMUM", "MINIMUM", "MUL", "NEG", "POW", "PRELU",
        "QUANTIZE", "RELU", "RELU6", "RELU_0_TO_1", "RELU_N1_TO_1", "RSQRT", "SQRT", "SQUARE",
        "SQUARED_DIFFERENCE", "SUB", "TANH",
    }
)  # fmt: skip
POOLING = frozenset({"AVERAGE_POOL_2D", "MAX_POOL_2D", "L2_POOL_2D"})
REDUCTIONS = frozenset({"MEAN", "SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD"})
DATA_MOVEMENT = frozenset(
    {
        "BATCH_TO_SPACE_ND", "BROADCAST_TO", "CONCATENATION", "DEPTH_TO_SPACE", "EXPAND_DIMS",
        "GATHER", "MIRROR_PAD", "PACK", "PAD", "PADV2", "RESHAPE", "SHAPE", "SLICE",
        "SPACE_TO_BATCH_ND", "SPACE_TO_DEPTH", "SPLIT", "SPLIT_V", "SQUEEZE", "STRIDED_SLICE",
        "TILE", "TRANSPOSE", "UNPACK",
    }
)  # fmt: skip
# Operators whose constant inputs are arguments (shapes, axes, paddings), not learned
# parameters: their constants are not counted as params.
ARGUMENT_CONSTANTS = (
    DATA_MOVEMENT | REDUCTIONS | frozenset({"RESIZE_BILINEAR", "RESIZE_NEAREST_NEIGHBOR"})
)


def numel(shape: Sequence[int]) -> int:
    """Element count; an unknown (negative) dimension counts as zero."""
    return math.prod(max(d, 0) for d in shape)


def tflite_macs(
    op: str,
    inputs: Sequence[Shape | None],
    outputs: Sequence[Shape],
    pool_filter: tuple[int, int] | None = None,
) -> int | None:
    """MACs of one TFLite operator from its tensor shapes, or None without a rule."""
    out = numel(outputs[0]) if outputs else 0
    filt = inputs[1] if len(inputs) > 1 else None
    if op == "CONV_2D" and filt is not None and len(filt) == 4 and filt[0] > 0:
        return out * (numel(filt) // filt[0])
    if op == "DEPTHWISE_CONV_2D" and filt is not None and len(filt) == 4:
        return out * filt[1] * filt[2]
    if op == "FULLY_CONNECTED" and filt is not None and len(filt) == 2:
        return out * filt[1]
    if op == "TRANSPOSE_CONV" and len(inputs) > 2 and filt is not None and len(filt) == 4:
        data = inputs[2]
        return numel(data) * filt[0] * filt[1] * filt[2] if data is not None else None
    if op in POOLING and pool_filter is not None:
        return out * pool_filter[0] * pool_filter[1]
    if op in REDUCTIONS and inputs and inputs[0] is not None:
        return numel(inputs[0])
    if op in ELEMENTWISE:
        return out
    if op in DATA_MOVEMENT:
        return 0
    return None


def tflite_params(op: str, constant_inputs: Sequence[tuple[int, Shape]]) -> int:
    """Learned parameters: elements of the constant inputs ``(input position, shape)``."""
    if op in ARGUMENT_CONSTANTS:
        return 0
    skip = {0} if op == "TRANSPOSE_CONV" else set()  # input 0 is the output-shape argument
    return sum(numel(shape) for pos, shape in constant_inputs if pos not in skip)
