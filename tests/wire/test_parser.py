"""The wire parser on real captured streams, intact and mutated."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hpx_core.errors import CaptureError
from hpx_core.wire import StreamError, WireParser, encode_record, parse_capture
from hpx_core.wire.parser import FEED_CHUNK, TEXT_LINES_KEPT

WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire"
STREAM = (WIRE / "selftest-qemu-m55.bin").read_bytes()
FAULT = (WIRE / "fault-qemu-m55.bin").read_bytes()
CHECK = (WIRE / "check-qemu-m55.bin").read_bytes()
LINES = STREAM.splitlines(keepends=True)


def test_complete_stream_parses_and_keeps_raw_bytes() -> None:
    capture = parse_capture(STREAM)
    assert capture.raw == STREAM
    assert capture.start.type == "START" and capture.start.text("board") == "qemu-m55"
    assert capture.status == 0
    assert [r.seq for r in capture.records] == list(range(len(LINES)))
    iterations = capture.start.number("iterations")
    assert len(capture.of("WHOLE")) == iterations
    assert len(capture.of("LAYER")) == iterations * len(capture.layer_names())
    prepared = 1 + 2 * iterations + 1  # warm-up, both passes, the memory pass
    assert capture.outputs() == {0: prepared.to_bytes(4, "little")}


def test_records_reencode_to_the_firmware_bytes() -> None:
    capture = parse_capture(STREAM)
    assert b"".join(encode_record(r.seq, r.type, r.fields) for r in capture.records) == STREAM


def test_feeding_byte_by_byte_gives_the_same_capture() -> None:
    parser = WireParser()
    for i in range(len(STREAM)):
        parser.feed(STREAM[i : i + 1])
    assert parser.close().records == parse_capture(STREAM).records


def test_fault_stream_carries_the_fault_record() -> None:
    capture = parse_capture(FAULT)
    fault = capture.fault
    assert fault is not None and capture.status == 3
    assert fault.number("cfsr") >> 16 & 1  # UNDEFINSTR


@pytest.mark.parametrize("cut", [len(STREAM) - 1, len(STREAM) - len(LINES[-1]), 200, 1])
def test_truncated_stream_is_reported(cut: int) -> None:
    with pytest.raises(StreamError) as caught:
        parse_capture(STREAM[:cut])
    assert caught.value.problem == "truncated"


def test_empty_stream_is_truncated() -> None:
    with pytest.raises(StreamError, match="no records"):
        parse_capture(b"")


def test_dropped_record_is_loss() -> None:
    damaged = b"".join(LINES[:10] + LINES[11:])
    with pytest.raises(StreamError) as caught:
        parse_capture(damaged)
    assert caught.value.problem == "lost"
    assert "expected record #10, got #11" in caught.value.message


def test_record_dropped_and_renumbered_is_caught_by_summary() -> None:
    """Even a consistent renumbering cannot hide a missing LAYER record: SUMMARY counts them."""
    capture = parse_capture(STREAM)
    kept = [r for r in capture.records if r.seq != capture.of("LAYER")[4].seq]
    stream = b"".join(encode_record(i, r.type, r.fields) for i, r in enumerate(kept))
    with pytest.raises(StreamError) as caught:
        parse_capture(stream)
    assert caught.value.problem == "lost"
    assert "LAYER records were sent" in caught.value.message


def test_repeated_record_is_loss() -> None:
    with pytest.raises(StreamError) as caught:
        parse_capture(b"".join(LINES[:10] + LINES[9:]))
    assert caught.value.problem == "lost"


def test_changed_digit_fails_the_checksum() -> None:
    line = LINES[13]
    assert line.startswith(b"@HPX 13 LAYER ")
    digit = line.index(b"raw=") + 4
    changed = line[:digit] + bytes([(line[digit] - 48 + 1) % 10 + 48]) + line[digit + 1 :]
    with pytest.raises(StreamError) as caught:
        parse_capture(b"".join([*LINES[:13], changed, *LINES[14:]]))
    assert caught.value.problem == "corrupted"
    assert caught.value.offset == sum(len(x) for x in LINES[:13])


def test_record_glued_into_text_is_corruption() -> None:
    with pytest.raises(StreamError) as caught:
        parse_capture(b"".join(LINES[:5]) + b"noise" + b"".join(LINES[5:]))
    assert caught.value.problem == "corrupted"


def test_plain_text_lines_are_kept_apart() -> None:
    capture = parse_capture(b"".join(LINES[:3]) + b"engine says hi\n" + b"".join(LINES[3:]))
    assert capture.text_lines == ("engine says hi",)
    assert len(capture.records) == len(LINES)


def test_a_stream_of_much_text_keeps_its_first_lines_and_its_bytes_once() -> None:
    talk = b"".join(f"line {i}\n".encode() for i in range(250_000))
    stream = b"".join(LINES[:3]) + talk + b"".join(LINES[3:])
    assert len(stream) > 2 * FEED_CHUNK  # parsed in pieces: lines cross the pieces' ends
    capture = parse_capture(stream)
    assert capture.text_lines == tuple(f"line {i}" for i in range(TEXT_LINES_KEPT))
    assert capture.raw is stream  # the caller's bytes, not a copy of them
    assert len(capture.records) == len(LINES)


def test_wrong_version_is_refused() -> None:
    start = parse_capture(STREAM).start
    newer = encode_record(0, "START", {**start.fields, "v": start.number("v") + 1})
    with pytest.raises(StreamError) as caught:
        parse_capture(newer + b"".join(LINES[1:]))
    assert caught.value.problem == "version"


def test_well_formed_record_with_bad_field_is_malformed() -> None:
    bad = encode_record(5, "LAYERINFO", {"idx": 0, "name": "x", "op": "y"}).replace(
        b"idx=0", b"idx=-1"
    )
    body = bad[: bad.rindex(b" *")]
    bad = body + f" *{zlib.crc32(body):08x}\n".encode()
    with pytest.raises(StreamError) as caught:
        parse_capture(b"".join(LINES[:5]) + bad + b"".join(LINES[6:]))
    assert caught.value.problem == "malformed"


def test_output_with_missing_bytes_is_reported() -> None:
    capture = parse_capture(STREAM)
    out = capture.first("OUTPUT")
    assert out is not None
    short = encode_record(out.seq, "OUTPUT", {**out.fields, "hex": b"\x07"})
    lines = list(LINES)
    lines[out.seq] = short
    with pytest.raises(StreamError) as caught:
        parse_capture(b"".join(lines))
    assert caught.value.problem == "truncated"


def test_check_pass_records_decode() -> None:
    """A real check pass: signed statistics, a differing layer in full, a file in chunks."""
    capture = parse_capture(CHECK)
    sums = capture.layer_sums()
    assert sums[(0, 0)].fields["min"] == -16 and sums[(0, 0)].fields["sum"] == -8
    assert sums[(1, 0)].fields["crc"] == zlib.crc32(bytes([3, 253, 7, 249, 11, 245, 15, 241]))
    tensors = capture.layer_tensors()
    assert set(tensors) == {(1, "out", 0), (1, "in", 0)}  # layer 0 matched the host CRC
    assert tensors[(1, "in", 0)] == bytes(b & 0xFF for b in (2, -4, 6, -8, 10, -12, 14, -16))
    assert capture.files() == {"numbers.bin": bytes(i & 0xFF for i in range(300))}
    records = b"".join(encode_record(r.seq, r.type, r.fields) for r in capture.records)
    assert records == b"".join(x for x in CHECK.splitlines(keepends=True) if x.startswith(b"@"))


def _without(stream: bytes, type_: str, nth: int) -> bytes:
    """The stream with the ``nth`` record of ``type_`` removed and the rest renumbered."""
    capture = parse_capture(stream)
    drop = capture.of(type_)[nth].seq
    kept = [r for r in capture.records if r.seq != drop]
    return b"".join(encode_record(i, r.type, r.fields) for i, r in enumerate(kept))


@pytest.mark.parametrize(("type_", "nth", "problem", "words"), [
    ("LAYERSUM", 1, "lost", "LAYERSUM records were sent"),
    ("TENSOR", 0, "lost", "TENSOR records were sent"),
    ("FILE", 2, "lost", "file numbers.bin has a gap at byte 100"),
    ("FILE", 5, "truncated", "file numbers.bin has 292 of 300 bytes"),
    ("FILEEND", 0, "truncated", "file numbers.bin has no FILEEND"),
])
def test_check_and_file_records_that_go_missing_are_caught(
    type_: str, nth: int, problem: str, words: str
) -> None:
    with pytest.raises(StreamError) as caught:
        parse_capture(_without(CHECK, type_, nth))
    assert caught.value.problem == problem and words in caught.value.message


def test_a_signed_field_refuses_what_is_not_a_number() -> None:
    line = CHECK.splitlines(keepends=True)[14]
    assert b" LAYERSUM " in line
    bad = line.replace(b"min=-16", b"min=--16")
    body = bad[: bad.rindex(b" *")]
    bad = body + f" *{zlib.crc32(body):08x}\n".encode()
    lines = CHECK.splitlines(keepends=True)
    with pytest.raises(StreamError) as caught:
        parse_capture(b"".join([*lines[:14], bad, *lines[15:]]))
    assert caught.value.problem == "malformed"


@settings(max_examples=300, deadline=None)
@given(position=st.integers(0, len(STREAM) - 1), value=st.integers(0, 255))
def test_any_single_byte_change_is_caught_or_harmless(position: int, value: int) -> None:
    """A changed byte never yields different numbers: the parse fails, or nothing changed."""
    mutated = STREAM[:position] + bytes([value]) + STREAM[position + 1 :]
    try:
        capture = parse_capture(mutated)
    except CaptureError:
        return
    assert capture.records == parse_capture(STREAM).records


def test_a_line_without_end_is_refused_while_it_streams() -> None:
    """4 MB without a newline, in UART-sized chunks: refused once it outgrows any record."""
    parser = WireParser()
    parser.feed(LINES[0])
    chunks = 0
    with pytest.raises(StreamError) as caught:
        for chunks, start in enumerate(range(0, 4 * 1024 * 1024, 256), start=1):  # noqa: B007
            parser.feed(b"A" * 256)
    assert caught.value.problem == "corrupted"
    assert "longer than 32,768 bytes" in caught.value.message
    assert chunks * 256 <= 32_768 + 256
    assert caught.value.offset == len(LINES[0])


def test_a_long_plain_text_line_is_refused() -> None:
    with pytest.raises(StreamError, match="longer than 32,768 bytes"):
        parse_capture(LINES[0] + b"x" * 40_000 + b"\n" + b"".join(LINES[1:]))


def test_long_names_within_bounds_still_parse() -> None:
    capture = parse_capture(STREAM)
    info = capture.first("LAYERINFO")
    assert info is not None
    name = "model/" + "conv%2d;" * 500  # percent-encoded: 4,000 bytes of name
    lines = list(LINES)
    lines[info.seq] = encode_record(info.seq, "LAYERINFO", {**info.fields, "name": name})
    assert parse_capture(b"".join(lines)).layer_names()[0][0] == name
