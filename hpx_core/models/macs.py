"""Multiply-accumulate and parameter arithmetic from tensor shapes.

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


# ExecuTorch operators (by name without namespace) that compute one result per output element.
PTE_ELEMENTWISE = frozenset(
    {
        "abs", "add", "clamp", "dequantize_per_tensor", "div", "exp", "hardsigmoid",
        "hardswish", "hardtanh", "leaky_relu", "maximum", "minimum", "mul", "neg",
        "quantize_per_tensor", "quantized_activation", "quantized_add", "quantized_div",
        "quantized_mul", "quantized_sub", "relu", "relu6", "rsqrt", "sigmoid", "sqrt", "sub",
        "tanh",
    }
)  # fmt: skip
PTE_REDUCTIONS = frozenset({"mean", "sum", "amax", "amin"})
PTE_DATA_MOVEMENT = frozenset(
    {
        "_to_dim_order_copy", "cat", "clone", "expand_copy", "pad", "permute_copy",
        "slice_copy", "squeeze_copy", "transpose", "unsqueeze_copy", "view_copy",
    }
)  # fmt: skip
# Convolutions and linear layers: products per output element = weight elements / out channels.
# ExecuTorch tensor sizes are logical (NCHW: channels at dim 1, whatever the memory dim order);
# the *_nhwc variants take NHWC sizes (channels last).
_CHANNELS_DIM = {
    "quantized_conv2d": 1, "quantized_depthwise_conv2d": 1,
    "quantized_conv2d_nhwc": -1, "quantized_depthwise_conv2d_nhwc": -1,
    "quantized_linear": -1,
}  # fmt: skip
_POOLS = frozenset(
    {"quantized_avg_pool2d", "quantized_avg_pool2d_nhwc", "quantized_max_pool2d",
     "quantized_max_pool2d_nhwc"}
)  # fmt: skip


def pte_macs(
    name: str,
    inputs: Sequence[Shape],
    outputs: Sequence[Shape],
    int_lists: Sequence[tuple[int, ...]] = (),
) -> int | None:
    """MACs of one ExecuTorch kernel call, or None without a rule.

    ``inputs`` are the tensor arguments in schema order (cortex_m:: convolutions and linear:
    input, weight, ...); ``int_lists`` the int-list arguments in order (pools: kernel_size
    first).
    """
    base = name.partition("::")[2] or name
    out = numel(outputs[0]) if outputs else 0
    if base in _CHANNELS_DIM and len(inputs) > 1 and outputs and outputs[0]:
        channels = outputs[0][_CHANNELS_DIM[base]]
        weights = numel(inputs[1])
        return out * weights // channels if channels > 0 and weights % channels == 0 else None
    if base in _POOLS and int_lists and len(int_lists[0]) == 2:
        return out * int_lists[0][0] * int_lists[0][1]
    if base in PTE_ELEMENTWISE and outputs:
        return out
    if base in PTE_REDUCTIONS and inputs:
        return numel(inputs[0])
    if base in PTE_DATA_MOVEMENT:
        return 0
    return None
