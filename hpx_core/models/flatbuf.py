"""Bounds-checked FlatBuffers table access for schemas without generated Python classes.

The ``flatbuffers`` runtime's own ``Table`` trusts every offset (and Python's ``unpack_from``
silently wraps negative ones), which is fine for generated code reading trusted files but not
for a profiler that is handed arbitrary bytes. Here every read is checked against the buffer,
every vector is checked to fit and counted against the reader's :class:`Budget`, and a bad
offset becomes a :class:`~hpx_core.errors.ModelError`.

Field slots are numbered in schema declaration order from 0; a union field takes two slots
(its ``_type`` byte, then the value), exactly as ``flatc`` lays them out.
"""

from __future__ import annotations

import struct

from flatbuffers import packer

from hpx_core.errors import ModelError
from hpx_core.models.guard import Budget, malformed

U8 = packer.uint8
I8 = packer.int8
U32 = packer.uint32
I32 = packer.int32
U64 = packer.uint64
I64 = packer.int64
_UOFFSET = packer.uoffset
_SOFFSET = packer.soffset
_VOFFSET = packer.voffset


class FlatBuffer:
    """The bytes of one flatbuffer, readable only inside ``[0, limit)``."""

    def __init__(self, data: bytes, budget: Budget, limit: int | None = None) -> None:
        self.data = data
        self.limit = len(data) if limit is None else min(limit, len(data))
        self.budget = budget

    def error(self, detail: str) -> ModelError:
        return malformed(self.budget.name, self.budget.kind, detail)

    def read(self, fmt: struct.Struct, pos: int) -> int:
        if pos < 0 or pos + fmt.size > self.limit:
            raise self.error(f"offset {pos} outside the {self.limit}-byte flatbuffer")
        value: int = fmt.unpack_from(self.data, pos)[0]
        return value

    def root(self) -> Table:
        return Table(self, self.read(_UOFFSET, 0))


class Table:
    """One table: its position and vtable, validated on construction."""

    def __init__(self, fb: FlatBuffer, pos: int) -> None:
        self.fb = fb
        self.pos = pos
        self.vtable = pos - fb.read(_SOFFSET, pos)
        self.vtable_size = fb.read(_VOFFSET, self.vtable)
        if (
            self.vtable_size < 4
            or self.vtable_size % 2
            or self.vtable + self.vtable_size > fb.limit
        ):
            raise fb.error(f"bad vtable at offset {self.vtable}")
        fb.budget.count(1)

    def _field(self, slot: int) -> int:
        """Absolute position of a field, or 0 when absent (the default applies)."""
        entry = 4 + 2 * slot
        if entry >= self.vtable_size:
            return 0
        offset = self.fb.read(_VOFFSET, self.vtable + entry)
        return self.pos + offset if offset else 0

    def scalar(self, slot: int, fmt: struct.Struct, default: int = 0) -> int:
        pos = self._field(slot)
        return self.fb.read(fmt, pos) if pos else default

    def _indirect(self, pos: int) -> int:
        return pos + self.fb.read(_UOFFSET, pos)

    def table(self, slot: int) -> Table | None:
        pos = self._field(slot)
        return Table(self.fb, self._indirect(pos)) if pos else None

    def string(self, slot: int) -> str | None:
        start, length = self._vector(slot, 1)
        if start < 0:
            return None
        return self.fb.data[start : start + length].decode("utf-8", "replace")

    def _vector(self, slot: int, element_size: int) -> tuple[int, int]:
        """(start, length) of a vector field; start -1 when absent."""
        pos = self._field(slot)
        if not pos:
            return -1, 0
        vector = self._indirect(pos)
        length = self.fb.read(_UOFFSET, vector)
        start = vector + _UOFFSET.size
        if start + length * element_size > self.fb.limit:
            raise self.fb.error(f"a vector of {length} elements runs past the end")
        self.fb.budget.count(length)
        return start, length

    def scalars(self, slot: int, fmt: struct.Struct) -> tuple[int, ...]:
        start, length = self._vector(slot, fmt.size)
        if start < 0:
            return ()
        return tuple(
            value for (value,) in fmt.iter_unpack(self.fb.data[start : start + length * fmt.size])
        )

    def tables(self, slot: int) -> list[Table]:
        start, length = self._vector(slot, _UOFFSET.size)
        if start < 0:
            return []
        return [Table(self.fb, self._indirect(start + 4 * i)) for i in range(length)]

    def union(self, type_slot: int) -> tuple[int, Table | None]:
        """A union field: (type tag, value table) from its two consecutive slots."""
        tag = self.scalar(type_slot, U8)
        return tag, (self.table(type_slot + 1) if tag else None)
