"""Bounds-checked FlatBuffers tables for an engine reading a format of its own without
generated classes: every offset checked against the file, every vector counted against the
reader's :class:`~hpx_core.sdk.models.Budget`. Its own module because it loads the
``flatbuffers`` runtime, which nothing else an engine imports needs."""

from __future__ import annotations

from hpx_core.models.flatbuf import I8, I32, I64, U8, U32, U64, FlatBuffer, Table

__all__ = ["I8", "I32", "I64", "U8", "U32", "U64", "FlatBuffer", "Table"]
