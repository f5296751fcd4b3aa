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

_INDEXED = ("LAYERINFO", "LAYER", "LAYEREV")
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

    def _check_output(self, record: Record, offset: int) -> None:
        tensor, size = record.number("tensor"), record.number("size")
        chunk = record.fields["hex"]
        assert isinstance(chunk, bytes)
        if record.number("offset") + len(chunk) > size:
            raise StreamError(
                "malformed",
                f"OUTPUT.offset {record.number('offset')} + {len(chunk)} bytes is past "
                f"OUTPUT.size {size}",
                offset,
            )
        if self._output_sizes.setdefault(tensor, size) != size:
            raise StreamError("malformed", f"output {tensor} changes its OUTPUT.size", offset)

    def _check_end(self, record: Record, offset: int) -> None:
        status = record.number("status")
        if status == 0 and not self._counts["SUMMARY"]:
            raise StreamError("lost", "END.status 0 without a SUMMARY record", offset)
        if status != 0 and not (self._counts["ERROR"] or self._counts["FAULT"]):
            raise StreamError(
                "malformed", f"END.status {status} without an ERROR or FAULT record", offset
            )


def check_outputs(capture: Capture, offset: int) -> None:
    """Every output tensor arrived whole: chunks contiguous, total equal to its size."""
    chunks: dict[int, list[tuple[int, int]]] = {}
    sizes: dict[int, int] = {}
    for r in capture.of("OUTPUT"):
        chunk = r.fields["hex"]
        assert isinstance(chunk, bytes)
        chunks.setdefault(r.number("tensor"), []).append((r.number("offset"), len(chunk)))
        sizes[r.number("tensor")] = r.number("size")
    for tensor, parts in chunks.items():
        position = 0
        for start, length in sorted(parts):
            if start != position:
                raise StreamError("lost", f"output {tensor} has a gap at byte {position}", offset)
            position += length
        if position != sizes[tensor]:
            raise StreamError(
                "truncated", f"output {tensor} has {position} of {sizes[tensor]} bytes", offset
            )
