"""Streaming parser for the wire protocol.

Feed it bytes as they arrive; it keeps them all, checks each record's checksum and sequence
number and the fields its type needs, and raises :class:`StreamError` (a CaptureError) at the
first lost, corrupted, malformed or truncated record. Bad data never becomes numbers.
Lines that do not start with the record prefix are the firmware's plain text output, kept.
"""

from __future__ import annotations

import re
import zlib
from typing import Literal
from urllib.parse import unquote_to_bytes

from hpx_core.errors import CaptureError
from hpx_core.wire.capture import Capture, Record
from hpx_core.wire.protocol import PREFIX, RECORDS, VERSION, FieldKind

Problem = Literal["corrupted", "lost", "truncated", "malformed", "version"]

_LINE = re.compile(rb"^@HPX (\d+) ([A-Z]+)((?: [a-z_]+=[^ ]*)*) \*([0-9a-f]{8})$")
_HEX32 = re.compile(r"^0x[0-9a-f]{8}$")
_SINT = re.compile(r"^-?[0-9]+$")
_SPECS = {t: tuple((f.name, f.kind) for f in spec.fields) for t, spec in RECORDS.items()}
_VALUE = {
    "int": rb"(\d+)",
    "sint": rb"(-?\d+)",
    "hex32": rb"0x([0-9a-f]{8})",
    "bytes": rb"((?:[0-9a-f]{2})*)",
    "text": rb"([^ ]*)",
}
# One exact pattern per record type: the fast path. Anything it rejects goes through the
# general path, which says precisely what is wrong.
_TYPED = {
    t.encode(): re.compile(
        rb"^@HPX (\d+) "
        + t.encode()
        + b"".join(b" " + f.name.encode() + b"=" + _VALUE[f.kind] for f in spec.fields)
        + rb" \*([0-9a-f]{8})$"
    )
    for t, spec in RECORDS.items()
}


class StreamError(CaptureError):
    """The device stream cannot be trusted; ``problem`` says how, ``offset`` where."""

    def __init__(self, problem: Problem, detail: str, offset: int) -> None:
        hints = {
            "corrupted": "a record failed its checksum: check the link (baud rate, noise)",
            "lost": "records are missing: the transport dropped data",
            "truncated": "the stream stopped early: the firmware hung, crashed or timed out",
            "malformed": "the firmware and hpx disagree on the protocol: rebuild the firmware",
            "version": "rebuild the firmware with this version of hpx",
        }
        super().__init__(f"capture {problem} at byte {offset}: {detail}", hints[problem])
        self.problem = problem
        self.offset = offset


def _convert(kind: FieldKind, text: str) -> int | str | bytes:
    if kind == "int":
        if not (text.isascii() and text.isdigit()):
            raise ValueError(f"not a decimal integer: {text!r}")
        return int(text)
    if kind == "sint":
        if not (text.isascii() and _SINT.match(text)):
            raise ValueError(f"not a signed decimal integer: {text!r}")
        return int(text)
    if kind == "hex32":
        if not _HEX32.match(text):
            raise ValueError(f"not a 32-bit hex value: {text!r}")
        return int(text, 16)
    if kind == "bytes":
        return bytes.fromhex(text)
    return unquote_to_bytes(text).decode("utf-8", errors="replace")


class WireParser:
    """Incremental parser: ``feed`` chunks, then ``close`` for the checked :class:`Capture`."""

    def __init__(self) -> None:
        self._raw = bytearray()
        self._pending = b""
        self._offset = 0  # stream offset of self._pending[0]
        self._records: list[Record] = []
        self._text: list[str] = []
        self._ended = False

    @property
    def records(self) -> list[Record]:
        return self._records

    def feed(self, data: bytes) -> list[Record]:
        """Take the next bytes; return the records completed by them."""
        self._raw += data
        buffer = self._pending + data
        lines = buffer.split(b"\n")
        self._pending = lines.pop()
        done: list[Record] = []
        for line in lines:
            record = self._line(line.rstrip(b"\r"), self._offset)
            self._offset += len(line) + 1
            if record is not None:
                done.append(record)
        return done

    def close(self) -> Capture:
        """End of stream: the capture, or StreamError if it is incomplete."""
        if self._pending.strip():
            raise StreamError("truncated", "the last line has no end", self._offset)
        if not self._records:
            raise StreamError("truncated", "no records at all", self._offset)
        if not self._ended:
            last = self._records[-1]
            raise StreamError(
                "truncated", f"no END record (last was #{last.seq} {last.type})", self._offset
            )
        capture = Capture(bytes(self._raw), tuple(self._records), tuple(self._text))
        _check_outputs(capture, self._offset)
        return capture

    def _line(self, line: bytes, offset: int) -> Record | None:
        if not line.startswith(PREFIX):
            if PREFIX.strip() in line:
                raise StreamError("corrupted", "a record does not start its line", offset)
            if line:
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
        pattern = _TYPED.get(line[end + 1 : type_end if type_end > 0 else len(line)])
        match = pattern.match(line) if pattern else None
        if match is None:
            return None
        values = match.groups()
        if zlib.crc32(line[: match.start(len(values)) - 2]) != int(values[-1], 16):
            return None
        seq = int(values[0])
        if self._ended or seq != len(self._records):
            return None
        type_ = line[end + 1 : type_end if type_end > 0 else len(line)].decode()
        fields: dict[str, int | str | bytes] = {}
        for (name, kind), value in zip(_SPECS[type_], values[1:-1], strict=True):
            if kind in ("int", "sint"):
                fields[name] = int(value)
            elif kind == "hex32":
                fields[name] = int(value, 16)
            elif kind == "bytes":
                fields[name] = bytes.fromhex(value.decode())
            else:
                fields[name] = _convert("text", value.decode("ascii", "replace"))
        record = Record(seq, type_, fields)
        self._check_order(record, offset)
        self._records.append(record)
        return record

    def _accept(self, match: re.Match[bytes], offset: int) -> Record:
        seq = int(match.group(1))
        expected = len(self._records)
        if self._ended:
            raise StreamError("malformed", f"record #{seq} after END", offset)
        if seq != expected:
            raise StreamError("lost", f"expected record #{expected}, got #{seq}", offset)
        type_ = match.group(2).decode()
        spec = _SPECS.get(type_)
        if spec is None:
            raise StreamError("malformed", f"unknown record type {type_}", offset)
        items = match.group(3).decode("ascii", "replace").split(" ")[1:]
        if len(items) != len(spec):
            raise StreamError(
                "malformed", f"{type_} has {len(items)} fields, expected {len(spec)}", offset
            )
        fields: dict[str, int | str | bytes] = {}
        for item, (name, kind) in zip(items, spec, strict=True):
            key, _, text = item.partition("=")
            if key != name:
                raise StreamError(
                    "malformed", f"{type_}: field {key!r} where {name!r} belongs", offset
                )
            if kind == "int" and text.isdigit():
                fields[name] = int(text)
                continue
            try:
                fields[name] = _convert(kind, text)
            except ValueError as error:
                raise StreamError("malformed", f"{type_}.{name}: {error}", offset) from None
        record = Record(seq, type_, fields)
        self._check_order(record, offset)
        self._records.append(record)
        return record

    def _check_order(self, record: Record, offset: int) -> None:
        if not self._records and record.type != "START":
            raise StreamError("malformed", f"first record is {record.type}, not START", offset)
        if record.type == "START":
            if self._records:
                raise StreamError("malformed", "a second START record", offset)
            if record.number("v") != VERSION:
                raise StreamError(
                    "version", f"protocol version {record.number('v')}, hpx reads {VERSION}", offset
                )
        if record.type == "SUMMARY":
            for kind, key in (("WHOLE", "whole"), ("LAYER", "layer_records")):
                got = sum(1 for r in self._records if r.type == kind)
                if got != record.number(key):
                    raise StreamError(
                        "lost",
                        f"SUMMARY says {record.number(key)} {kind} "
                        f"records were sent, {got} arrived",
                        offset,
                    )
        if record.type == "CHECKEND":
            for kind, key in (("LAYERSUM", "sums"), ("TENSOR", "chunks")):
                got = sum(1 for r in self._records if r.type == kind)
                if got != record.number(key):
                    raise StreamError(
                        "lost", f"CHECKEND says {record.number(key)} {kind} records were sent, "
                        f"{got} arrived", offset)
        if record.type == "END":
            self._ended = True


def _check_whole(what: str, chunks: list[tuple[int, bytes]], size: int, offset: int) -> None:
    """One chunked payload arrived whole: chunks contiguous, total equal to its size."""
    position = 0
    for start, chunk in sorted(chunks):
        if start != position:
            raise StreamError("lost", f"{what} has a gap at byte {position}", offset)
        position += len(chunk)
    if position != size:
        raise StreamError("truncated", f"{what} has {position} of {size} bytes", offset)


Key = tuple[object, ...]


def _chunks(records: list[Record], keys: tuple[str, ...]) -> dict[Key, list[tuple[int, bytes]]]:
    """Chunks of each payload (named by ``keys``' values): (offset, bytes)."""
    found: dict[Key, list[tuple[int, bytes]]] = {}
    for r in records:
        data = r.fields["hex"]
        assert isinstance(data, bytes)
        found.setdefault(tuple(r.fields[k] for k in keys), []).append((r.number("offset"), data))
    return found


def _check_outputs(capture: Capture, offset: int) -> None:
    """Every output tensor, dumped layer tensor and engine file arrived whole."""
    outputs: dict[Key, int] = {(r.number("tensor"),): r.number("size")
                               for r in capture.of("OUTPUT")}
    for key, chunks in _chunks(capture.of("OUTPUT"), ("tensor",)).items():
        _check_whole(f"output {key[0]}", chunks, outputs[key], offset)
    tensor_keys = ("idx", "role", "tensor")
    dumped: dict[Key, int] = {tuple(r.fields[k] for k in tensor_keys): r.number("size")
                              for r in capture.of("TENSOR")}
    for key, chunks in _chunks(capture.of("TENSOR"), tensor_keys).items():
        _check_whole("layer {} {} {}".format(*key), chunks, dumped[key], offset)
    ends: dict[Key, int] = {(r.text("name"),): r.number("size") for r in capture.of("FILEEND")}
    files = _chunks(capture.of("FILE"), ("name",))
    for key in files.keys() - ends.keys():
        raise StreamError("truncated", f"file {key[0]} has no FILEEND", offset)
    for key, size in ends.items():
        _check_whole(f"file {key[0]}", files.get(key, []), size, offset)


def parse_capture(data: bytes) -> Capture:
    """Parse a whole captured stream (see :class:`WireParser`)."""
    parser = WireParser()
    parser.feed(data)
    return parser.close()
