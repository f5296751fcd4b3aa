"""MAC and parameter rules, each checked against a small hand calculation."""

from __future__ import annotations

from hpx_core.models.macs import numel, tflite_macs, tflite_params


def test_conv_counts_filter_volume_per_output() -> None:
    # 3x3 conv, 8 -> 16 channels, 10x10 output: 10*10*16 outputs * 3*3*8 products = 115,200
    assert tflite_macs("CONV_2D", [(1, 12, 12, 8), (16, 3, 3, 8), (16,)], [(1, 10, 10, 16)]) == (
        115_200
    )


def test_depthwise_and_fully_connected() -> None:
    # depthwise 5x5 on 4x4x32: 4*4*32 outputs * 25 = 12,800
    assert tflite_macs("DEPTHWISE_CONV_2D", [(1, 8, 8, 32), (1, 5, 5, 32)], [(1, 4, 4, 32)]) == (
        12_800
    )
    # FC 2 rows, 100 -> 7: 2*7 outputs * 100 = 1,400
    assert tflite_macs("FULLY_CONNECTED", [(2, 100), (7, 100), (7,)], [(2, 7)]) == 1_400


def test_transpose_conv_scatters_each_input() -> None:
    # input 4x4x8, filter [Cout=3, 2, 2, Cin=8]: 4*4*8 inputs * 2*2*3 = 1,536
    inputs = [(4,), (3, 2, 2, 8), (1, 4, 4, 8)]
    assert tflite_macs("TRANSPOSE_CONV", inputs, [(1, 8, 8, 3)]) == 1_536
    # the output-shape argument (input 0) is not a parameter: 3*2*2*8 = 96 weights
    assert tflite_params("TRANSPOSE_CONV", [(0, (4,)), (1, (3, 2, 2, 8))]) == 96


def test_pooling_needs_its_filter() -> None:
    assert tflite_macs("MAX_POOL_2D", [(1, 4, 4, 2)], [(1, 2, 2, 2)], (2, 2)) == 2 * 2 * 2 * 4
    assert tflite_macs("MAX_POOL_2D", [(1, 4, 4, 2)], [(1, 2, 2, 2)], None) is None


def test_reductions_elementwise_and_movement() -> None:
    assert tflite_macs("MEAN", [(1, 5, 5, 4), (2,)], [(1, 4)]) == 100
    assert tflite_macs("ADD", [(1, 3, 3), (1, 3, 3)], [(1, 3, 3)]) == 9
    assert tflite_macs("RESHAPE", [(1, 1, 1, 4), (2,)], [(1, 4)]) == 0
    assert tflite_macs("SOFTMAX", [(1, 10)], [(1, 10)]) is None  # no rule: not a guess


def test_argument_constants_are_not_parameters() -> None:
    assert tflite_params("RESHAPE", [(1, (2,))]) == 0
    assert tflite_params("MEAN", [(1, (2,))]) == 0
    assert tflite_params("ADD", [(1, (1, 1, 4))]) == 4


def test_numel_treats_unknown_dimensions_as_empty() -> None:
    assert numel(()) == 1
    assert numel((2, -1, 3)) == 0
