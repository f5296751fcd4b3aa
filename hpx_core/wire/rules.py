"""What a record may say, given the records before it: order, counts and impossible values.

The parser checks each line's framing, checksum and field bounds; these rules check the stream
as a whole, record by record, so a number that cannot be true (an iteration past the promised
count, a calibration whose sum is not between its bounds, a complete run without every whole
inference) is refused where it arrives, before anything computes with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from hpx_core.wire.capture import Capture, Record
from hpx_core.wire.errors import StreamError
from hpx_core.wire.protocol import VERSION

_INDEXED = ("LAYERINFO", "LAYER", "LAYEREV", "MEMLAYER", "MEMUSE")
_ITERATED = ("WHOLE", "LAYER", "LAYEREV")


class StreamRules:
    """Admits records one at a time, in order; StreamError at the first that cannot be true."""

    def __init__(self) -> None:
        self.start: Record | None = None
        self.ended = False
        self._counts: Counter[str] = Counter()
        self._output_sizes: dict[int, int] = {}
        self._limits: dict[str, tuple[tuple[str, str, int], ...]] = {}
        self._checks: dict[str, Callable[[Record, int], None]] = {
            "CAL": self._check_cal,
            "SUMMARY": self._check_summary,
            "OUTPUT": self._check_output,
            "VOUT": self._check_chunk,
            "CHECKEND": self._check_checkend,
            "MEMEND": self._check_memend,
            "VALIDEND": self._check_validend,
            "END": self._check_end,
        }

    def admit(self, record: Record, offset: int) -> None:
        """Check ``record`` against the stream so far and count it."""
        if self.start is None:
            self._first(record, offset)
        elif record.type == "START":
            raise StreamError("malformed", "a second START record", offset)
        check = self._checks.get(record.type)
        if check is not None:
            check(record, offset)
        for field, promise, limit in self._limits.get(record.type, ()):
            value = record.fields[field]
            assert isinstance(value, int)
            if value >= limit:
                raise StreamError(
                    "malformed",
                    f"{record.type}.{field} is {value}, but START.{promise} is {limit}",
                    offset,
                )
        self._counts[record.type] += 1
        if record.type == "END":
            self.ended = True

    def _first(self, record: Record, offset: int) -> None:
        if record.type != "START":
            raise StreamError("malformed", f"first record is {record.type}, not START", offset)
        if record.number("v") != VERSION:
            raise StreamError(
                "version", f"protocol version {record.number('v')}, hpx reads {VERSION}", offset
            )
        self.start = record
        # Layer indexes and iterations stay below what START promised.
        for type_ in {*_INDEXED, *_ITERATED}:
            self._limits[type_] = tuple(
                (field, promise, record.number(promise))
                for field, promise, types in (("idx", "max_layers", _INDEXED),
                                              ("iter", "iterations", _ITERATED))
                if type_ in types
            )

    def _check_cal(self, record: Record, offset: int) -> None:
        repeats, low, high = record.number("repeats"), record.number("min"), record.number("max")
        if low > high:
            raise StreamError("malformed", f"CAL.min {low} is above CAL.max {high}", offset)
        total = record.number("sum")
        if not repeats * low <= total <= repeats * high:
            raise StreamError(
                "malformed",
                f"CAL.sum {total} is not between {repeats} x min and {repeats} x max",
                offset,
            )

    def _check_summary(self, record: Record, offset: int) -> None:
        assert self.start is not None
        for kind, key in (("WHOLE", "whole"), ("LAYER", "layer_records")):
            if self._counts[kind] != record.number(key):
                raise StreamError(
                    "lost",
                    f"SUMMARY says {record.number(key)} {kind} records were sent, "
                    f"{self._counts[kind]} arrived",
                    offset,
                )
        if record.number("whole") != self.start.number("iterations"):
            raise StreamError(
                "malformed",
                f"SUMMARY.whole is {record.number('whole')}, but START.iterations is "
                f"{self.start.number('iterations')}",
                offset,
            )

    def _check_chunk(self, record: Record, offset: int) -> None:
        """An OUTPUT or VOUT chunk ends within the tensor's size."""
        size, chunk = record.number("size"), record.fields["hex"]
        assert isinstance(chunk, bytes)
        if record.number("offset") + len(chunk) > size:
            raise StreamError(
                "malformed",
                f"{record.type}.offset {record.number('offset')} + {len(chunk)} bytes is past "
                f"{record.type}.size {size}",
                offset,
            )

    def _check_output(self, record: Record, offset: int) -> None:
        self._check_chunk(record, offset)
        tensor, size = record.number("tensor"), record.number("size")
        if self._output_sizes.setdefault(tensor, size) != size:
            raise StreamError("malformed", f"output {tensor} changes its OUTPUT.size", offset)

    def _check_checkend(self, record: Record, offset: int) -> None:
        for kind, key in (("LAYERSUM", "sums"), ("TENSOR", "chunks")):
            if self._counts[kind] != record.number(key):
                raise StreamError(
                    "lost", f"CHECKEND says {record.number(key)} {kind} records were sent, "
                    f"{self._counts[kind]} arrived", offset)

    def _check_memend(self, record: Record, offset: int) -> None:
        for kind, key in (("MEMLAYER", "layers"), ("MEMUSE", "uses"), ("MEMFACT", "facts")):
            if self._counts[kind] != record.number(key):
                raise StreamError(
                    "lost", f"MEMEND says {record.number(key)} {kind} records were sent, "
                    f"{self._counts[kind]} arrived", offset)
        base, stack, size = (record.number(k) for k in ("base", "stack", "size"))
        if not base <= stack <= size:
            raise StreamError(
                "malformed", f"MEMEND.stack {stack} is not between MEMEND.base {base} and the "
                f"stack's size {size}", offset)

    def _check_validend(self, record: Record, offset: int) -> None:
        if self._counts["VOUT"] != record.number("records"):
            raise StreamError(
                "lost", f"VALIDEND says {record.number('records')} VOUT records were sent, "
                f"{self._counts['VOUT']} arrived", offset)

    def _check_end(self, record: Record, offset: int) -> None:
        status = record.number("status")
        if status == 0 and not self._counts["SUMMARY"]:
            raise StreamError("lost", "END.status 0 without a SUMMARY record", offset)
        if status != 0 and not (self._counts["ERROR"] or self._counts["FAULT"]):
            raise StreamError(
                "malformed", f"END.status {status} without an ERROR or FAULT record", offset
            )


def _check_whole(what: str, chunks: list[tuple[int, int]], size: int, offset: int) -> None:
    """One chunked payload arrived whole: chunks contiguous, total equal to its size."""
    position = 0
    for start, length in sorted(chunks):
        if start != position:
            raise StreamError("lost", f"{what} has a gap at byte {position}", offset)
        position += length
    if position != size:
        raise StreamError("truncated", f"{what} has {position} of {size} bytes", offset)


Key = tuple[str, ...]


def _chunks(records: list[Record], keys: tuple[str, ...]) -> dict[Key, list[tuple[int, int]]]:
    """The chunks of each payload (named by ``keys``' values): (offset, length)."""
    found: dict[Key, list[tuple[int, int]]] = {}
    for r in records:
        data = r.fields["hex"]
        assert isinstance(data, bytes)
        found.setdefault(tuple(str(r.fields[k]) for k in keys), []).append(
            (r.number("offset"), len(data)))
    return found


def check_outputs(capture: Capture, offset: int) -> None:
    """Every output tensor, tensor the check pass dumped and engine file arrived whole."""
    outputs: dict[Key, int] = {(str(r.number("tensor")),): r.number("size")
                               for r in capture.of("OUTPUT")}
    for key, parts in _chunks(capture.of("OUTPUT"), ("tensor",)).items():
        _check_whole(f"output {key[0]}", parts, outputs[key], offset)
    tensor_keys = ("idx", "role", "tensor")
    dumped: dict[Key, int] = {tuple(str(r.fields[k]) for k in tensor_keys): r.number("size")
                              for r in capture.of("TENSOR")}
    for key, parts in _chunks(capture.of("TENSOR"), tensor_keys).items():
        _check_whole("layer {} {} {}".format(*key), parts, dumped[key], offset)
    ends: dict[Key, int] = {(r.text("name"),): r.number("size") for r in capture.of("FILEEND")}
    files = _chunks(capture.of("FILE"), ("name",))
    for key in files.keys() - ends.keys():
        raise StreamError("truncated", f"file {key[0]} has no FILEEND", offset)
    for key, size in ends.items():
        _check_whole(f"file {key[0]}", files.get(key, []), size, offset)
