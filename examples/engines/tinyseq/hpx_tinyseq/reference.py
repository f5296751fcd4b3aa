"""The host reference: every layer in NumPy with the device's integer math, for exact checks.

A dense layer accumulates in int64, which equals the device's int32 because the reader bounds
widths, weights and biases so that no sum can leave the int32 range; the shift is an
arithmetic (floor) shift after adding half a step, as ``ts_requantize`` in C.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hpx_tinyseq.model import Clamp, Dense, Layer, Relu

I8 = npt.NDArray[np.int8]


def dense(layer: Dense, x: I8) -> I8:
    weights = np.asarray(layer.weights, dtype=np.int64).reshape(layer.units, layer.inputs)
    acc = weights @ x.astype(np.int64) + np.asarray(layer.bias, dtype=np.int64)
    if layer.shift > 0:
        acc = (acc + (1 << (layer.shift - 1))) >> layer.shift
    return np.clip(acc, -128, 127).astype(np.int8)


def run_layer(layer: Layer, x: I8) -> I8:
    if isinstance(layer, Dense):
        return dense(layer, x)
    if isinstance(layer, Relu):
        return np.maximum(x, 0).astype(np.int8)
    if isinstance(layer, Clamp):
        return np.clip(x, layer.low, layer.high).astype(np.int8)
    raise TypeError(f"not a tinyseq layer: {layer!r}")


def host_outputs(layers: tuple[Layer, ...], values: tuple[int, ...]) -> tuple[I8, ...]:
    """Every layer's output, in order, for the input ``values``."""
    x = np.asarray(values, dtype=np.int8)
    outputs: list[I8] = []
    for layer in layers:
        x = run_layer(layer, x)
        outputs.append(x)
    return tuple(outputs)
