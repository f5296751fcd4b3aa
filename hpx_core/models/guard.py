"""Limits that keep a hostile or corrupted model file from crashing or hanging a reader.

FlatBuffers readers trust the offsets they find, so garbage input surfaces as struct, index,
type or value errors deep inside generated code, and a forged vector length can ask for billions
of iterations. Readers count every element they visit against a budget proportional to the file
size and turn every low-level failure into one :class:`~hpx_core.errors.ModelError`.
"""

from __future__ import annotations

import struct

from hpx_core.errors import ModelError

# What generated FlatBuffers accessors and numpy raise on garbage offsets and lengths.
MALFORMED: tuple[type[BaseException], ...] = (
    struct.error,
    IndexError,
    KeyError,
    ValueError,  # includes UnicodeDecodeError and numpy's "buffer is smaller than requested"
    TypeError,  # flatbuffers' enforce_number on out-of-range offsets
    AttributeError,
    OverflowError,
    MemoryError,
    RecursionError,
)

# Elements a valid file can hold: every visited element occupies at least one byte of the file,
# plus headroom for small files whose tables share default values.
_ELEMENTS_PER_BYTE = 2
_BASE_ELEMENTS = 4096


class Budget:
    """Counts elements visited while reading one file; too many means the file lies."""

    def __init__(self, file_size: int, name: str, kind: str) -> None:
        self.remaining = _BASE_ELEMENTS + _ELEMENTS_PER_BYTE * file_size
        self.name = name
        self.kind = kind

    def count(self, n: int) -> int:
        """Spend ``n`` element visits; returns ``n`` so it can wrap a ``range``."""
        if n < 0 or n > self.remaining:
            raise ModelError(
                f"{self.name}: corrupted {self.kind}: a table claims {n} elements, more than "
                "the file can hold",
                hint=f"the file is damaged or not a {self.kind}; re-export or re-download it",
            )
        self.remaining -= n
        return n


def malformed(name: str, kind: str, detail: str) -> ModelError:
    """The error for a structurally broken file, with the same hint everywhere."""
    return ModelError(
        f"{name}: malformed {kind} ({detail})",
        hint=f"the file is truncated or damaged; re-export or re-download the {kind}",
    )
