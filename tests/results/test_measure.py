"""Counts from a real capture: the device sends exact instructions, the host subtracts the pair."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hpx_core.boards import get_board
from hpx_core.results import measure
from hpx_core.selftest.layers import calibration_layers
from hpx_core.wire import encode_record, parse_capture

STREAM = (
    Path(__file__).resolve().parents[1] / "fixtures" / "wire" / "selftest-qemu-m55.bin"
).read_bytes()


def test_corrected_counts_are_raw_minus_the_pair() -> None:
    board = get_board("qemu-m55")
    capture = parse_capture(STREAM)
    m = measure(capture, board)
    cal = capture.first("CAL")
    assert cal is not None and cal.number("min") == cal.number("max")  # every pair identical
    pair = Fraction(cal.number("sum"), cal.number("repeats"))
    assert m.calibration_raw == pair and pair.denominator == 1 and m.per_raw_unit == 1
    assert m.raw_units == "instructions"
    for layer in m.layers:
        for raw, count in zip(layer.raw, layer.counts, strict=True):
            assert count == raw - pair
    assert m.units == "instructions (emulated)" and m.validity == "valid" and not m.issues


def test_known_loops_come_out_at_their_instruction_counts() -> None:
    m = measure(parse_capture(STREAM), get_board("qemu-m55"))
    for layer, known in zip(m.layers, calibration_layers(get_board("qemu-m55")), strict=True):
        assert layer.name == known.name
        assert layer.counts == (known.expected,) * len(layer.counts)


def test_missing_samples_degrade_the_result() -> None:
    """A run that measured a layer fewer times than promised (and said so) is degraded."""
    capture = parse_capture(STREAM)
    kept = [
        r
        for r in capture.records
        if not (r.type == "LAYER" and r.number("iter") == 2 and r.number("idx") == 0)
    ]
    fields = [
        {**r.fields, "layer_records": r.number("layer_records") - 1}
        if r.type == "SUMMARY"
        else r.fields
        for r in kept
    ]
    stream = b"".join(
        encode_record(i, r.type, f) for i, (r, f) in enumerate(zip(kept, fields, strict=True))
    )
    m = measure(parse_capture(stream), get_board("qemu-m55"))
    assert m.validity == "degraded"
    assert m.issues == ("layer 0 has 2 of 3 samples",)
