"""Checksum-valid records whose numbers cannot be true are refused at parse time.

Each stream is the real selftest capture with one record re-sealed (a correct CRC-32), so the
framing is right and only the value is wrong: what a firmware bug or a forged capture would send.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.results import measure
from hpx_core.wire import StreamError, encode_record, parse_capture

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire"
STREAM = (WIRE / "selftest-qemu-m55.bin").read_bytes()
RECORDS = parse_capture(STREAM).records


def seal(body: str) -> bytes:
    """A record line with a correct checksum, whatever its fields say."""
    raw = body.encode()
    return raw + f" *{zlib.crc32(raw):08x}\n".encode()


def replaced(type_: str, change: dict[str, object] | str, nth: int = 0) -> bytes:
    """The selftest stream with the ``nth`` record of ``type_`` changed and re-sealed.

    ``change`` is a dict of field values (encoded like the firmware does) or, for values the
    encoder cannot express, the raw text of the fields after the type.
    """
    target = [r for r in RECORDS if r.type == type_][nth]
    if isinstance(change, str):
        line = seal(f"@HPX {target.seq} {type_} {change}")
    else:
        line = encode_record(target.seq, type_, {**target.fields, **change})
    lines = STREAM.splitlines(keepends=True)
    lines[target.seq] = line
    return b"".join(lines)


def refused(stream: bytes) -> StreamError:
    with pytest.raises(StreamError) as caught:
        parse_capture(stream)
    assert caught.value.problem == "malformed", caught.value.message
    return caught.value


def test_a_5000_digit_integer_is_malformed_not_a_value_error() -> None:
    error = refused(replaced("CAL", "repeats=" + "9" * 5000 + " min=1 max=1 sum=1"))
    assert "CAL.repeats" in error.message


def test_zero_calibration_repeats_is_refused_before_anything_divides() -> None:
    error = refused(replaced("CAL", {"repeats": 0}))
    assert "CAL.repeats" in error.message and "0" in error.message


@pytest.mark.parametrize(
    ("type_", "change", "says"),
    [
        ("START", {"iterations": 0}, "START.iterations"),
        ("START", {"max_layers": 0}, "START.max_layers"),
        ("START", {"max_layers": 4096}, "START.max_layers"),
        ("CAL", {"min": 40, "max": 39}, "CAL.min"),
        ("CAL", {"sum": 1}, "CAL.sum"),
        ("LAYERINFO", {"idx": 240}, "LAYERINFO.idx"),
        ("WHOLE", {"iter": 3}, "WHOLE.iter"),
        ("LAYER", {"idx": 240}, "LAYER.idx"),
        ("LAYER", {"calls": 0}, "LAYER.calls"),
        ("SUMMARY", {"whole": 2**32}, "SUMMARY.whole"),
        ("OUTPUT", {"offset": 2}, "OUTPUT.offset"),
        ("OUTPUT", {"hex": bytes(65), "size": 65}, "OUTPUT.hex"),
        ("METRIC", "name=x value=" + str(2**64), "METRIC.value"),
        ("END", {"status": 4}, "END.status"),
        ("LAYERINFO", {"name": "x" * 4097}, "LAYERINFO.name"),
    ],
)
def test_values_outside_their_bounds_are_refused(
    type_: str, change: dict[str, object] | str, says: str
) -> None:
    assert says in refused(replaced(type_, change)).message


def test_a_complete_end_needs_every_whole_inference() -> None:
    summary = next(r for r in RECORDS if r.type == "SUMMARY")
    kept = [r for r in RECORDS if not (r.type == "WHOLE" or r.type == "SUMMARY")]
    fields = [dict(r.fields) for r in kept]
    stream = b"".join(encode_record(i, r.type, f) for i, (r, f) in
                      enumerate(zip(kept, fields, strict=True)))
    with pytest.raises(StreamError, match=r"END\.status 0 without a SUMMARY"):
        parse_capture(stream)
    index = kept.index(next(r for r in kept if r.type == "END"))
    kept.insert(index, summary)
    fields.insert(index, {"whole": 0, "layer_records": summary.number("layer_records")})
    stream = b"".join(encode_record(i, r.type, f) for i, (r, f) in
                      enumerate(zip(kept, fields, strict=True)))
    assert "SUMMARY.whole" in refused(stream).message


def test_a_failed_end_needs_an_error_or_fault_record() -> None:
    assert "END.status" in refused(replaced("END", {"status": 1})).message


def test_a_negative_engine_error_code_is_read() -> None:
    start = RECORDS[0]
    stream = encode_record(0, "START", dict(start.fields))
    stream += seal("@HPX 1 ERROR stage=invoke code=-5") + encode_record(2, "END", {"status": 1})
    error = parse_capture(stream).first("ERROR")
    assert error is not None and error.number("code") == -5


def test_what_the_parser_admits_measures_without_dividing_by_zero() -> None:
    measurement = measure(parse_capture(STREAM), get_board("qemu-m55"))
    assert measurement.validity == "valid" and measurement.calibration > 0


def test_a_memory_pass_that_lost_a_layer_record_is_refused() -> None:
    with pytest.raises(StreamError) as caught:
        parse_capture(replaced("MEMEND", {"layers": 9}))
    assert caught.value.problem == "lost" and "MEMLAYER" in caught.value.message


def test_a_deepest_point_above_where_the_engine_was_called_is_refused() -> None:
    end = next(r for r in RECORDS if r.type == "MEMEND")
    error = refused(replaced("MEMEND", {"base": end.number("stack") + 4}))
    assert "MEMEND.stack" in error.message


def test_a_memory_layer_past_the_promised_slots_is_refused() -> None:
    error = refused(replaced("MEMLAYER", {"idx": 240}))
    assert "MEMLAYER.idx" in error.message


def _with_validation(vout: dict[str, object], records: int) -> bytes:
    """The selftest stream with a validation pass before its END: one VOUT, then VALIDEND
    saying ``records`` were sent."""
    end = next(i for i, r in enumerate(RECORDS) if r.type == "END")
    added = [("VALIDATE", {"samples": 1, "first": 0}), ("VOUT", vout),
             ("VALIDEND", {"samples": 1, "records": records})]
    body = [(r.type, dict(r.fields)) for r in RECORDS]
    body[end:end] = added
    return b"".join(encode_record(i, t, f) for i, (t, f) in enumerate(body))


def test_a_validation_pass_parses_and_its_chunks_and_count_are_checked() -> None:
    good = {"sample": 0, "tensor": 0, "offset": 0, "size": 4, "hex": bytes(4)}
    assert len(parse_capture(_with_validation(good, 1)).of("VOUT")) == 1
    assert "VOUT.offset 2 + 4 bytes is past VOUT.size 4" in refused(
        _with_validation({**good, "offset": 2}, 1)).message
    with pytest.raises(StreamError, match="VALIDEND says 2 VOUT records were sent, 1 arrived"):
        parse_capture(_with_validation(good, 2))
