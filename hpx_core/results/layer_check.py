"""The layer check: every layer's outputs on the device against the engine's host reference.

The firmware's check pass sent a CRC-32 and statistics per layer output (LAYERSUM) and, for a
layer whose CRC differed from the reference compiled into it, the whole tensors (TENSOR). Here
the host recomputes everything from the reference and never takes the device's word:

- ``exact``: every output's CRC, element count and statistics equal the host's;
- ``different``: an output differs while every input the layer read is exact (the kernel);
- ``inherited``: an output differs and an input came from a differing layer;
- ``not checked``: the host reference has no such layer (it stopped before it).

A layer sent in full gets a full comparison: mismatched elements, the largest difference in
quantized steps and dequantized, the SNR in dB and where the largest difference is; its inputs
are compared too, which tells a wrong kernel from an input that was already wrong.
"""

from __future__ import annotations

import io
import math
import zlib
from collections.abc import Mapping
from typing import Any, Literal

import attrs
import numpy as np

from hpx_core.contract import LayerReference, ReferenceLayer, ReferenceTensor
from hpx_core.wire import Capture, Record

Status = Literal["exact", "different", "inherited", "not checked"]
STATS = ("count", "crc", "min", "max", "sum")


def tensor_stats(dtype: str, data: bytes) -> dict[str, int]:
    """The statistics the firmware sends (float32 elements in Q16.16, as hpx_check.c)."""
    numpy_dtype = np.dtype("uint8" if dtype == "raw" else dtype)
    values = np.frombuffer(data, dtype=numpy_dtype)
    if dtype == "float32":
        scaled = np.nan_to_num(values.astype(np.float64) * 65536.0, nan=0.0)
        scaled = np.clip(scaled, -4.0e18, 4.0e18)
        ints = np.trunc(scaled + np.copysign(0.5, scaled)).astype(np.int64)
    else:
        ints = values.astype(np.int64)
    return {"count": int(values.size), "crc": zlib.crc32(data),
            "min": int(ints.min()) if ints.size else 0,
            "max": int(ints.max()) if ints.size else 0, "sum": int(ints.sum())}


def _device_stats(record: Record) -> dict[str, int]:
    return {key: record.number(key) for key in STATS}


@attrs.frozen
class TensorComparison:
    """A whole tensor of a layer, device against host (a layer the device sent in full)."""

    layer: int
    role: str  # "out" or "in"
    tensor: int
    count: int
    mismatched: int
    max_steps: int
    max_abs: float | None  # dequantized; None for a tensor without quantization
    snr_db: float | None  # None when the two are equal (infinite SNR)
    position: tuple[int, ...]
    device: np.ndarray[Any, Any] = attrs.field(eq=False, repr=False)
    host: np.ndarray[Any, Any] = attrs.field(eq=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        return {"layer": self.layer, "role": self.role, "tensor": self.tensor,
                "count": self.count, "mismatched": self.mismatched,
                "max_diff_steps": self.max_steps, "max_diff": self.max_abs,
                "snr_db": self.snr_db, "position": list(self.position),
                "device_file": self.file_name("device"), "host_file": self.file_name("host")}

    def file_name(self, side: str) -> str:
        return f"layer_check-{self.layer}-{self.role}{self.tensor}-{side}.npy"


def _real(values: np.ndarray[Any, Any], tensor: ReferenceTensor) -> np.ndarray[Any, Any]:
    """Stored values as real numbers (dequantized when the tensor is quantized)."""
    real = values.astype(np.float64)
    return (real - (tensor.zero_point or 0)) * tensor.scale if tensor.scale else real


def compare_tensor(layer: int, role: str, index: int, device: bytes,
                   host: ReferenceTensor) -> TensorComparison:
    """Element by element: steps are differences of the stored values, SNR over real values."""
    dtype = np.dtype("uint8" if host.dtype == "raw" else host.dtype)
    dev = np.frombuffer(device, dtype=dtype)
    ref = np.frombuffer(host.data, dtype=dtype)
    n = min(dev.size, ref.size)
    steps = np.abs(dev[:n].astype(np.float64) - ref[:n].astype(np.float64))
    error = _real(dev[:n], host) - _real(ref[:n], host)
    noise = float(np.sum(error * error))
    signal = float(np.sum(_real(ref[:n], host) ** 2))
    snr = None if noise == 0 else (10.0 * math.log10(signal / noise) if signal else -math.inf)
    shape = host.shape if math.prod(host.shape) == n else (n,)
    worst = int(np.argmax(steps)) if n else 0
    real_valued = bool(host.scale) or host.dtype == "float32"
    return TensorComparison(
        layer=layer, role=role, tensor=index, count=n,
        mismatched=int(np.count_nonzero(steps)) + abs(dev.size - ref.size),
        max_steps=int(steps.max()) if n and host.dtype != "float32" else 0,
        max_abs=float(np.abs(error).max()) if n and real_valued else None,
        snr_db=snr, position=tuple(int(i) for i in np.unravel_index(worst, shape)) if n else (),
        device=dev.reshape(shape) if dev.size == n else dev, host=ref.reshape(shape))


@attrs.frozen
class LayerVerdict:
    """One layer: its status and, per output, the device's and the host's statistics."""

    index: int
    name: str
    op: str
    status: Status
    device: tuple[Mapping[str, int], ...]
    host: tuple[Mapping[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "op": self.op, "status": self.status,
                "device": [dict(s) for s in self.device], "host": [dict(s) for s in self.host]}


@attrs.frozen
class LayerCheck:
    """The whole check: verdicts in layer order, full comparisons, and what was left out."""

    mode: str
    reference: str
    stopped: str | None
    layers: tuple[LayerVerdict, ...]
    tensors: tuple[TensorComparison, ...]
    skipped: int = 0
    note: str | None = None

    @property
    def first_divergent(self) -> LayerVerdict | None:
        return next((v for v in self.layers if v.status in ("different", "inherited")), None)

    @property
    def exact(self) -> bool:
        """Every layer checked and exact."""
        return bool(self.layers) and all(v.status == "exact" for v in self.layers)

    def cause(self) -> str | None:
        """For the first divergent layer sent in full: a wrong kernel or a wrong input."""
        first = self.first_divergent
        if first is None:
            return None
        inputs = [t for t in self.tensors if t.layer == first.index and t.role == "in"]
        if not inputs and first.status == "different":
            return "its inputs are exact: the layer's kernel computes differently"
        bad = [t for t in inputs if t.mismatched]
        if bad:
            return (f"input {bad[0].tensor} already differed when the layer read it: the "
                    "difference comes from before this layer")
        return "its inputs as it read them are exact: the layer's kernel computes differently"

    def to_json(self) -> dict[str, Any]:
        first = self.first_divergent
        return {"mode": self.mode, "reference": self.reference, "stopped": self.stopped,
                "note": self.note, "exact": self.exact,
                "first_divergent": None if first is None else first.index,
                "first_divergent_name": None if first is None else first.name,
                "cause": self.cause(), "skipped_tensors": self.skipped,
                "counts": {s: sum(v.status == s for v in self.layers)
                           for s in ("exact", "different", "inherited", "not checked")},
                "layers": [v.to_json() for v in self.layers],
                "tensors": [t.to_json() for t in self.tensors]}

    def files(self) -> dict[str, bytes]:
        """The device and host tensors of every layer compared in full, as .npy files."""
        out: dict[str, bytes] = {}
        for t in self.tensors:
            for side, array in (("device", t.device), ("host", t.host)):
                buffer = io.BytesIO()
                np.save(buffer, array, allow_pickle=False)
                out[t.file_name(side)] = buffer.getvalue()
        return out


def _status(layer: ReferenceLayer | None, same: bool, bad_tensors: set[int]) -> Status:
    if layer is None:
        return "not checked"
    if same:
        return "exact"
    return "inherited" if any(t.tensor in bad_tensors for t in layer.inputs) else "different"


def check_layers(capture: Capture, reference: LayerReference | None, mode: str,
                 engine: str) -> LayerCheck:
    """Judge every layer the device reported against ``reference``."""
    names = capture.layer_names()
    sums = capture.layer_sums()
    end = capture.first("CHECKEND")
    skipped = end.number("skipped") if end else 0
    if reference is None:
        return LayerCheck(mode, "", None, (), (), skipped,
                          f"engine {engine} has no per-layer host reference; nothing compared")
    by_index = {layer.index: layer for layer in reference.layers}
    bad: set[int] = set()
    verdicts: list[LayerVerdict] = []
    for idx in sorted({i for i, _ in sums}):
        outs = sorted(k for i, k in sums if i == idx)
        device = tuple(_device_stats(sums[(idx, k)]) for k in outs)
        layer = by_index.get(idx)
        host = tuple(tensor_stats(t.dtype, t.data) for t in layer.outputs) if layer else ()
        status = _status(layer, device == host, bad)
        if status in ("different", "inherited") and layer is not None:
            bad |= {t.tensor for t, d, h in zip(layer.outputs, device, host, strict=False)
                    if d != h}
        name, op = names.get(idx, (f"layer_{idx}", "unknown"))
        verdicts.append(LayerVerdict(idx, name, op, status, device, host))
    return LayerCheck(mode, reference.source, reference.stopped, tuple(verdicts),
                      _full(capture, by_index), skipped)


def _full(capture: Capture, by_index: Mapping[int, ReferenceLayer]) -> tuple[
        TensorComparison, ...]:
    found = []
    for (idx, role, k), data in sorted(capture.layer_tensors().items()):
        layer = by_index.get(idx)
        tensors = () if layer is None else (layer.outputs if role == "out" else layer.inputs)
        if k < len(tensors):
            found.append(compare_tensor(idx, role, k, data, tensors[k]))
    return tuple(found)
