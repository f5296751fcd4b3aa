"""Multiply-accumulate arithmetic of ExecuTorch kernel calls from their tensor arguments.

One rule per operator family (by name without namespace), as for TFLite operators
(:mod:`hpx_core.models.macs`, whose conventions these follow): an operator without a rule gets
``None``, reported as "not counted", never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence

from hpx_core.sdk.models import Shape, numel

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
