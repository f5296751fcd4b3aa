"""Bounds-checked FlatBuffers access: every bad offset is a ModelError, never a wrap-around."""

from __future__ import annotations

import struct

import flatbuffers
import pytest

from hpx_core.errors import ModelError
from hpx_core.models.flatbuf import I32, U8, FlatBuffer
from hpx_core.models.guard import Budget


def _buffer() -> bytes:
    """A root table { 0: int = 7, 1: [int] = [1, 2, 3], 2: string = "hi", 3: table {0: 9} }."""
    b = flatbuffers.Builder(64)
    text = b.CreateString("hi")
    b.StartVector(4, 3, 4)
    for v in (3, 2, 1):
        b.PrependInt32(v)
    vector = b.EndVector()
    b.StartObject(1)
    b.PrependInt32Slot(0, 9, 0)
    child = b.EndObject()
    b.StartObject(4)
    b.PrependInt32Slot(0, 7, 0)
    b.PrependUOffsetTRelativeSlot(1, vector, 0)
    b.PrependUOffsetTRelativeSlot(2, text, 0)
    b.PrependUOffsetTRelativeSlot(3, child, 0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


def _root(data: bytes) -> FlatBuffer:
    return FlatBuffer(data, Budget(len(data), "t.bin", "test file"))


def test_reads_fields_and_defaults() -> None:
    root = _root(_buffer()).root()
    assert root.scalar(0, I32) == 7
    assert root.scalars(1, I32) == (1, 2, 3)
    assert root.string(2) == "hi"
    child = root.table(3)
    assert child is not None and child.scalar(0, I32) == 9
    # absent fields (slot beyond the vtable) take their defaults
    assert root.scalar(9, I32, default=-1) == -1
    assert root.string(9) is None and root.table(9) is None and root.scalars(9, U8) == ()
    assert root.union(8) == (0, None)


def test_negative_and_past_the_end_offsets() -> None:
    fb = _root(_buffer())
    for pos in (-4, len(fb.data) - 2, len(fb.data) + 100):
        with pytest.raises(ModelError, match="outside"):
            fb.read(I32, pos)


def test_vector_longer_than_the_buffer() -> None:
    data = bytearray(_buffer())
    root = _root(bytes(data)).root()
    start = root._field(1) + struct.unpack_from("<I", data, root._field(1))[0]
    struct.pack_into("<I", data, start, 1_000_000)  # the vector's length word
    with pytest.raises(ModelError, match="runs past the end") as err:
        _root(bytes(data)).root().scalars(1, I32)
    assert err.value.hint


def test_limit_hides_bytes_after_the_program() -> None:
    data = _buffer()
    with pytest.raises(ModelError):
        FlatBuffer(data, Budget(len(data), "t", "test file"), limit=6).root()


def test_bad_vtable_is_refused() -> None:
    data = bytearray(_buffer())
    root_pos = struct.unpack_from("<I", data, 0)[0]
    struct.pack_into("<i", data, root_pos, -(len(data) * 4))  # vtable far outside
    with pytest.raises(ModelError):
        _root(bytes(data)).root()
