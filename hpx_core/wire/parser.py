"""Streaming parser for the wire protocol.

Feed it bytes as they arrive; it keeps them all, checks each record's checksum, sequence number
and fields (kinds and bounds, :mod:`hpx_core.wire.protocol`) and the stream's rules
(:mod:`hpx_core.wire.rules`), and raises :class:`StreamError` (a CaptureError) at the first
lost, corrupted, malformed or truncated record. Bad data never becomes numbers. Lines that do
not start with the record prefix are the firmware's plain text output: the first
:data:`TEXT_LINES_KEPT` are kept as strings (an engine's words for an error come first), the
rest stay in the raw bytes only, so firmware that prints a great deal costs no Python object per
line. No line may outgrow :data:`~hpx_core.wire.protocol.MAX_LINE`, so buffering stays linear
in the stream; :func:`parse_capture` feeds a whole stream :data:`FEED_CHUNK` bytes at a time
and keeps it as given, so parsing holds no second copy of it.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Sequence
from urllib.parse import unquote_to_bytes

from hpx_core.wire.capture import Capture, Record
from hpx_core.wire.errors import StreamError
from hpx_core.wire.protocol import MAX_LINE, PREFIX, RECORDS, FieldSpec
from hpx_core.wire.rules import StreamRules, check_outputs

__all__ = ["StreamError", "WireParser", "parse_capture"]

_LINE = re.compile(rb"^@HPX (\d{1,10}) ([A-Z]+)((?: [a-z_]+=[^ ]*)*) \*([0-9a-f]{8})$")
_HEX32 = re.compile(rb"^0x[0-9a-f]{8}$")
_INT = re.compile(rb"^\d{1,20}$")
_SIGNED = re.compile(rb"^-?\d{1,19}$")
_SPECS = {t: spec.fields for t, spec in RECORDS.items()}
TEXT_LINES_KEPT = 1_000
FEED_CHUNK = 1024 * 1024
Converter = Callable[[FieldSpec, bytes], int | str | bytes]
_VALUE = {
    "int": rb"(\d{1,20})",
    "i32": rb"(-?\d{1,10})",
    "i64": rb"(-?\d{1,19})",
    "hex32": rb"(0x[0-9a-f]{8})",
    "bytes": rb"((?:[0-9a-f]{2})*)",
    "text": rb"([^ ]*)",
}
# One exact pattern per record type: the fast path. Anything it rejects goes through the
# general path, which says precisely what is wrong.
_TYPED = {
    t.encode(): re.compile(
        rb"^@HPX (\d{1,10}) "
        + t.encode()
        + b"".join(b" " + f.name.encode() + b"=" + _VALUE[f.kind] for f in spec.fields)
        + rb" \*([0-9a-f]{8})$"
    )
    for t, spec in RECORDS.items()
}


def _convert(spec: FieldSpec, raw: bytes) -> int | str | bytes:
    """The value of one field, within its bounds; ValueError saying why not."""
    if spec.kind in ("int", "i32", "i64"):
        if not (_INT if spec.kind == "int" else _SIGNED).match(raw):
            raise ValueError(f"not a decimal integer of at most 20 digits: {raw[:40]!r}")
        return _bounded(spec, int(raw))
    if spec.kind == "hex32":
        if not _HEX32.match(raw):
            raise ValueError(f"not a 32-bit hex value: {raw[:40]!r}")
        return int(raw, 16)
    data = bytes.fromhex(raw.decode("ascii")) if spec.kind == "bytes" else unquote_to_bytes(raw)
    if len(data) > spec.high:
        raise ValueError(f"{len(data):,} bytes, more than the {spec.high:,} allowed")
    return data if spec.kind == "bytes" else data.decode("utf-8", errors="replace")


def _bounded(spec: FieldSpec, number: int) -> int:
    if not spec.low <= number <= spec.high:
        raise ValueError(f"{number} is outside {spec.bounds()}")
    return number


def _converted(spec: FieldSpec, raw: bytes) -> int | str | bytes:
    """``_convert`` for a value the record's exact pattern already matched."""
    if spec.kind in ("int", "i32", "i64"):
        return _bounded(spec, int(raw))
    if spec.kind == "hex32":
        return int(raw, 16)
    return _convert(spec, raw)


class WireParser:
    """Incremental parser: ``feed`` chunks, then ``close`` for the checked :class:`Capture`."""

    def __init__(self, *, keep_raw: bool = True) -> None:
        self._keep_raw = keep_raw  # False: the caller holds the stream (parse_capture)
        self._raw = bytearray()
        self._pending = bytearray()
        self._offset = 0  # stream offset of self._pending[0]
        self._records: list[Record] = []
        self._text: list[str] = []
        self._rules = StreamRules()

    @property
    def records(self) -> list[Record]:
        return self._records

    def feed(self, data: bytes) -> list[Record]:
        """Take the next bytes; return the records completed by them."""
        if self._keep_raw:
            self._raw += data
        lines = data.split(b"\n")
        self._pending += lines[0]
        if len(lines) == 1:
            self._check_length(self._pending)
            return []
        lines[0] = bytes(self._pending)
        self._pending = bytearray(lines.pop())
        done: list[Record] = []
        for line in lines:
            self._check_length(line)
            record = self._line(line.rstrip(b"\r"), self._offset)
            self._offset += len(line) + 1
            if record is not None:
                done.append(record)
        self._check_length(self._pending)
        return done

    def close(self, raw: bytes | None = None) -> Capture:
        """End of stream: the capture (of ``raw`` when the caller kept the stream), or
        StreamError if it is incomplete."""
        if self._pending.strip():
            raise StreamError("truncated", "the last line has no end", self._offset)
        if not self._records:
            raise StreamError("truncated", "no records at all", self._offset)
        if not self._rules.ended:
            last = self._records[-1]
            raise StreamError(
                "truncated", f"no END record (last was #{last.seq} {last.type})", self._offset
            )
        kept = bytes(self._raw) if raw is None else raw
        capture = Capture(kept, tuple(self._records), tuple(self._text))
        check_outputs(capture, self._offset)
        return capture

    def _check_length(self, line: bytes | bytearray) -> None:
        if len(line) > MAX_LINE:
            raise StreamError(
                "corrupted", f"a line longer than {MAX_LINE:,} bytes", self._offset
            )

    def _line(self, line: bytes, offset: int) -> Record | None:
        if not line.startswith(PREFIX):
            if PREFIX.strip() in line:
                raise StreamError("corrupted", "a record does not start its line", offset)
            if line and len(self._text) < TEXT_LINES_KEPT:
                self._text.append(line.decode("utf-8", errors="replace"))
            return None
        fast = self._fast(line, offset)
        if fast is not None:
            return fast
        match = _LINE.match(line)
        if match is None:
            raise StreamError("corrupted", f"unreadable record {line[:60]!r}", offset)
        if zlib.crc32(line[: match.end(3)]) != int(match.group(4), 16):
            raise StreamError("corrupted", f"checksum mismatch in {line[:60]!r}", offset)
        return self._accept(match, offset)

    def _fast(self, line: bytes, offset: int) -> Record | None:
        """Parse a well-formed record in one regex match; None sends it down the general path."""
        end = line.find(b" ", 5)
        type_end = line.find(b" ", end + 1)
        type_ = line[end + 1 : type_end if type_end > 0 else len(line)]
        pattern = _TYPED.get(type_)
        match = pattern.match(line) if pattern else None
        if match is None:
            return None
        values = match.groups()
        if zlib.crc32(line[: match.start(len(values)) - 2]) != int(values[-1], 16):
            return None
        seq = int(values[0])
        if self._rules.ended or seq != len(self._records):
            return None
        name = type_.decode()
        return self._admit(seq, name, values[1:-1], offset, _converted)

    def _accept(self, match: re.Match[bytes], offset: int) -> Record:
        seq = int(match.group(1))
        expected = len(self._records)
        if self._rules.ended:
            raise StreamError("malformed", f"record #{seq} after END", offset)
        if seq != expected:
            raise StreamError("lost", f"expected record #{expected}, got #{seq}", offset)
        type_ = match.group(2).decode()
        spec = _SPECS.get(type_)
        if spec is None:
            raise StreamError("malformed", f"unknown record type {type_}", offset)
        items = match.group(3).split(b" ")[1:]
        if len(items) != len(spec):
            raise StreamError(
                "malformed", f"{type_} has {len(items)} fields, expected {len(spec)}", offset
            )
        values = []
        for item, field in zip(items, spec, strict=True):
            key, _, text = item.partition(b"=")
            if key != field.name.encode():
                raise StreamError(
                    "malformed", f"{type_}: field {key[:40]!r} where {field.name!r} belongs",
                    offset,
                )
            values.append(text)
        return self._admit(seq, type_, values, offset, _convert)

    def _admit(
        self, seq: int, type_: str, raw: Sequence[bytes], offset: int, convert: Converter
    ) -> Record:
        """Convert the fields within their bounds, check the stream's rules, keep the record."""
        fields: dict[str, int | str | bytes] = {}
        for spec, value in zip(_SPECS[type_], raw, strict=True):
            try:
                fields[spec.name] = convert(spec, value)
            except ValueError as error:
                raise StreamError("malformed", f"{type_}.{spec.name}: {error}", offset) from None
        record = Record(seq, type_, fields)
        self._rules.admit(record, offset)
        self._records.append(record)
        return record


def parse_capture(data: bytes) -> Capture:
    """Parse a whole captured stream (see :class:`WireParser`), a chunk at a time so no list
    of all its lines is ever made."""
    parser = WireParser(keep_raw=False)
    view = memoryview(data)
    for start in range(0, len(data), FEED_CHUNK):
        parser.feed(bytes(view[start : start + FEED_CHUNK]))
    return parser.close(bytes(data))
