"""The firmware glue: the model table and its constants as C, plus the engine's fixed C files.

``kb_model.c`` is generated: one ``kb_layer_t`` per kernel call (shapes, padding, offsets) and
the constants from :mod:`hpx_kernelbench.params` as C arrays, so the device computes from the
very bytes the host reference used. The fixed files (``glue/``) implement the harness's engine
interface once (``kb_engine.c``) and each backend's calls (``kb_backend_*.c``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from importlib import resources

import attrs
import numpy as np
import numpy.typing as npt

from hpx_core.sdk import PlannedBuffer
from hpx_kernelbench.kernels import Conv2d, KernelCall, KernelList
from hpx_kernelbench.params import BenchmarkData, KernelParams

FIXED = ("kb_model.h", "kb_backend.h", "kb_engine.c")
BACKEND_FILE = {"portable": "kb_backend_portable.c", "cmsis_nn": "kb_backend_cmsis.c",
                "ns": "kb_backend_cmsis.c"}
BACKEND_DEFINES = {"ns": {"KB_NS_CMSIS_NN": "1"}}
ACTIVATION_USES = ("data", "sram", "tcm")  # RAM the board's memory map offers
WEIGHT_USES = ("flash", "sram", "code")  # constants may stay in flash
PER_LINE = 20


@attrs.frozen
class Glue:
    """What the glue adds to the generated project."""

    files: dict[str, str]
    sources: tuple[str, ...]
    defines: dict[str, str]
    buffers: tuple[PlannedBuffer, ...]


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_array(ctype: str, name: str, values: Iterable[int], *, const: bool = True,
            align: int = 4) -> str:
    """``[const] ctype name[] = {...};`` aligned to ``align`` bytes, PER_LINE values a line."""
    items = [str(int(v)) for v in values] or ["0"]
    lines = [", ".join(items[i: i + PER_LINE]) for i in range(0, len(items), PER_LINE)]
    body = ",\n    ".join(lines)
    prefix = "const " if const else ""
    return (f"{prefix}{ctype} {name}[{len(items)}] __attribute__((aligned({align}))) = {{\n"
            f"    {body}\n}};\n")


def scratch_bound(kernels: KernelList) -> int:
    """Bytes that cover what CMSIS-NN's and ns-cmsis-nn's convolution wrappers ask for
    (im2col columns for MVE or DSP, the 1xN row buffer); the device checks the real need."""
    need = 0
    for call in kernels.calls:
        if isinstance(call, Conv2d):
            cols = call.depth
            row = call.input[3] * (call.filter[2] + call.stride[1])
            need = max(need, 4 * (cols + 16) + 4 * row)
    return -(-need // 16) * 16


def _dims(shape: Sequence[int]) -> tuple[int, int, int, int]:
    """[n, ...] as (n, h, w, c) with missing inner dimensions 1 (a flattened input)."""
    rest = [1] * (4 - len(shape)) + list(shape[1:])
    return shape[0], rest[-3], rest[-2], rest[-1]


def _layer(index: int, call: KernelCall, params: KernelParams, offsets: dict[str, int],
           sums: int | None) -> str:
    n, in_h, in_w, in_c = _dims(call.input)
    _, out_h, out_w, out_c = _dims(call.output)
    if isinstance(call, Conv2d):
        kind, k, stride, pads = "KB_OP_CONV2D", call.filter[1:3], call.stride, call.pads
    else:
        kind, k, stride, pads = "KB_OP_FULLY_CONNECTED", (1, 1), (1, 1), (0, 0)
        in_h, in_w, in_c = 1, 1, call.depth
    sums_ref = f"&kb_sums[{sums}]" if sums is not None else "0"
    return (
        f"    {{{_c_string(call.name)}, {_c_string(call.op)}, {kind},\n"
        f"     {n}, {in_h}, {in_w}, {in_c}, {out_h}, {out_w}, {out_c},\n"
        f"     {k[0]}, {k[1]}, {stride[0]}, {stride[1]}, {pads[0]}, {pads[1]},\n"
        f"     {-params.input_zero_point}, {params.output_zero_point},\n"
        f"     &kb_weights[{offsets['weights']}], &kb_quant[{offsets['bias']}],\n"
        f"     &kb_quant[{offsets['multipliers']}], &kb_quant[{offsets['shifts']}], {sums_ref}}},"
        f"  /* {index} */\n"
    )


def _align16(size: int) -> int:
    return -(-size // 16) * 16


def model_source(kernels: KernelList, data: BenchmarkData, backend: str, act_min: int,
                 act_max: int) -> tuple[str, tuple[PlannedBuffer, ...]]:
    """``kb_model.c`` and the large buffers it defines."""
    weights: list[npt.NDArray[np.int8]] = []
    quant: list[npt.NDArray[np.int32]] = []
    layers: list[str] = []
    w_at = q_at = sums_at = 0
    with_sums = backend != "portable"
    for index, (call, params) in enumerate(zip(kernels.calls, data.kernels, strict=True)):
        offsets = {"weights": w_at, "bias": q_at, "multipliers": q_at + call.channels,
                   "shifts": q_at + call.channels + len(params.multipliers)}
        weights.append(params.weights)
        w_at += _align16(len(params.weights))
        weights.append(np.zeros(_align16(len(params.weights)) - len(params.weights), np.int8))
        quant += [params.bias, params.multipliers, params.shifts]
        q_at = offsets["shifts"] + len(params.shifts)
        layers.append(_layer(index, call, params, offsets, sums_at if with_sums else None))
        sums_at += call.channels
    activations = _align16(max(math.prod(kernels.input),
                               *(math.prod(c.output) for c in kernels.calls)))
    scratch = scratch_bound(kernels) if with_sums else 0
    parts = [
        "/* Generated by hpx_kernelbench from "
        f"{kernels.path.name} with seed {data.seed}, backend {backend}. */\n",
        '#include "kb_model.h"\n\n',
        c_array("int8_t", "kb_input", data.input.tolist()),
        c_array("int8_t", "kb_weights", np.concatenate(weights).tolist(), align=16),
        c_array("int32_t", "kb_quant", np.concatenate(quant).tolist()),
        f"int8_t kb_activations[{2 * activations}] __attribute__((aligned(16)));\n",
    ]
    if with_sums:
        parts.append(f"int32_t kb_sums[{sums_at}] __attribute__((aligned(16)));\n")
        parts.append(f"int8_t kb_scratch[{max(scratch, 16)}] __attribute__((aligned(16)));\n")
    parts += [
        f"\nstatic const kb_layer_t layers[{len(layers)}] = {{\n", *layers, "};\n\n",
        "const kb_model_t kb_model = {\n",
        f"    layers, {len(layers)}u, kb_input, {math.prod(kernels.input)}u, "
        f"{math.prod(kernels.output)}u,\n",
        f"    {{kb_activations, kb_activations + {activations}}},\n",
        f"    {'kb_scratch' if with_sums else '0'}, {max(scratch, 16) if with_sums else 0}u,\n",
        f"    {act_min}, {act_max},\n}};\n",
    ]
    weight_bytes = sum(len(w) for w in weights)
    buffers = (
        PlannedBuffer("activations", "kb_activations", 2 * activations, ACTIVATION_USES),
        PlannedBuffer("kernel weights", "kb_weights", weight_bytes, WEIGHT_USES),
    )
    return "".join(parts), buffers


def fixed_file(name: str) -> str:
    """One of the engine's own C files, shipped as package data."""
    return resources.files("hpx_kernelbench").joinpath("glue", name).read_text(encoding="utf-8")


def make_glue(kernels: KernelList, data: BenchmarkData, backend: str, act_min: int,
              act_max: int) -> Glue:
    """Every file the glue adds, the ones compiled into ``hpx_app``, and its buffers."""
    source, buffers = model_source(kernels, data, backend, act_min, act_max)
    backend_file = BACKEND_FILE[backend]
    files = {name: fixed_file(name) for name in (*FIXED, backend_file)}
    files["kb_model.c"] = source
    return Glue(files=files, sources=("kb_engine.c", backend_file, "kb_model.c"),
                defines=dict(BACKEND_DEFINES.get(backend, {})), buffers=buffers)
