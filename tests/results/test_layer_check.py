"""The layer check's verdicts on a real check pass (tests/fixtures/firmware/check_engine.c)."""

from __future__ import annotations

import io
import math
import struct
from pathlib import Path

import numpy as np

from hpx_core.contract import LayerReference, ReferenceLayer, ReferenceTensor
from hpx_core.results.check_view import LayerCheckView, divergence_text
from hpx_core.results.layer_check import check_layers, compare_tensor, tensor_stats
from hpx_core.wire import parse_capture

CHECK = parse_capture(
    (Path(__file__).resolve().parents[1] / "fixtures" / "wire" / "check-qemu-m55.bin").read_bytes())
INPUT = [1, -2, 3, -4, 5, -6, 7, -8]


def _t(tensor: int, values: list[int], scale: float | None = 0.5) -> ReferenceTensor:
    return ReferenceTensor(tensor, "int8", (8,), struct.pack("8b", *values), scale, 0)


def reference() -> LayerReference:
    """What the host says: layer 0 doubles the input (tensor 1), layer 1 adds two."""
    hidden = [2 * x for x in INPUT]
    return LayerReference("by hand", (
        ReferenceLayer(0, (_t(1, hidden),), (_t(0, INPUT),)),
        ReferenceLayer(1, (_t(2, [x + 2 for x in hidden]),), (_t(1, hidden),)),
    ))


def _with_output(ref: LayerReference, index: int, output: ReferenceTensor) -> LayerReference:
    layers = list(ref.layers)
    layers[index] = ReferenceLayer(index, (output,), layers[index].inputs)
    return LayerReference(ref.source, tuple(layers))


def test_the_layer_whose_kernel_differs_is_found_and_compared_in_full() -> None:
    check = check_layers(CHECK, reference(), "first", "check_engine")
    assert [(v.index, v.status) for v in check.layers] == [(0, "exact"), (1, "different")]
    assert check.first_divergent is not None and check.first_divergent.name == "plus_one"
    out = next(t for t in check.tensors if t.role == "out")
    assert (out.mismatched, out.max_steps, out.max_abs) == (8, 1, 0.5)
    assert out.snr_db is not None and math.isclose(out.snr_db, 10 * math.log10(
        sum((0.5 * (2 * x + 2)) ** 2 for x in INPUT) / (8 * 0.25)))
    inp = next(t for t in check.tensors if t.role == "in")
    assert inp.mismatched == 0 and "kernel" in (check.cause() or "")
    files = check.files()
    device = np.load(io.BytesIO(files["layer_check-1-out0-device.npy"]))
    assert device.tolist() == [2 * x + 1 for x in INPUT]
    summary = check.to_json()
    assert summary["first_divergent"] == 1 and summary["exact"] is False


def test_the_divergence_sentence_counts_steps_in_good_english() -> None:
    check = check_layers(CHECK, reference(), "first", "check_engine")
    text = divergence_text(LayerCheckView.of(check))
    assert text is not None and "first divergent layer 1 plus_one" in text
    assert "8 of 8 elements differ, largest by 1 step (0.5 dequantized)" in text


def test_a_difference_before_a_layer_marks_it_inherited() -> None:
    ref = reference()
    hidden = [2 * x for x in INPUT]
    wrong = _with_output(ref, 0, _t(1, [h + 1 for h in hidden]))
    check = check_layers(CHECK, wrong, "first", "check_engine")
    assert [v.status for v in check.layers] == ["different", "inherited"]


def test_layers_past_the_reference_are_not_checked() -> None:
    short = LayerReference("by hand", reference().layers[:1], "the host cannot run layer 1")
    check = check_layers(CHECK, short, "first", "check_engine")
    assert [v.status for v in check.layers] == ["exact", "not checked"]
    assert check.to_json()["stopped"] == "the host cannot run layer 1"


def test_an_engine_without_a_reference_says_so() -> None:
    check = check_layers(CHECK, None, "first", "executorch")
    assert check.layers == () and "no per-layer host reference" in (check.note or "")


def test_an_engine_that_compares_elsewhere_says_where() -> None:
    note = "compared by ExecuTorch's Inspector; hpx wrote etdump.etdp"
    check = check_layers(CHECK, None, "first", "executorch", note)
    assert check.layers == () and check.to_json()["note"] == note and not check.exact


def test_float_statistics_are_q16_rounded_half_away_from_zero() -> None:
    values = np.array([1.5, -0.25, 2.0**-17, -(2.0**-17), float("nan")], np.float32)
    stats = tensor_stats("float32", values.tobytes())
    assert stats["min"] == -16384 and stats["max"] == 98304
    assert stats["sum"] == 98304 - 16384 + 1 - 1 + 0


def test_a_float_tensor_compares_in_real_units() -> None:
    host = ReferenceTensor(3, "float32", (2, 2), np.array([1, 2, 3, 4], np.float32).tobytes())
    device = np.array([1, 2, 3.5, 4], np.float32).tobytes()
    t = compare_tensor(0, "out", 0, device, host)
    assert (t.mismatched, t.max_abs, t.position) == (1, 0.5, (1, 0))
