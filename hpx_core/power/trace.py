"""One power trace: current, voltage and the board's two-bit state, sample by sample.

An instrument streams each signal in chunks, each chunk numbered by the index of its first
sample; the general-purpose inputs come packed eight samples to a byte (least significant bit
first, as Joulescope's driver hands them). :func:`assemble` lays every chunk at its index and
keeps the span all signals cover, so a sample of current and the state at that instant share
one index; a gap inside a signal (a lost chunk) is an error, never zeros.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
import numpy as np
import numpy.typing as npt

from hpx_core.errors import PowerError

Floats = npt.NDArray[np.float64]
States = npt.NDArray[np.uint8]
SIGNALS = ("current", "voltage", "gpi0", "gpi1")
"""The signals a trace is made of (the two inputs wired to the board's power GPIOs)."""


@attrs.frozen
class Chunk:
    """``data`` of one signal from sample ``first`` on; ``packed``: eight 1-bit samples per
    byte."""

    first: int
    data: npt.NDArray[np.generic]
    packed: bool = False

    def samples(self) -> npt.NDArray[np.generic]:
        if self.packed:
            return np.unpackbits(self.data.astype(np.uint8), bitorder="little")
        return self.data


@attrs.frozen(eq=False)
class PowerTrace:
    """Aligned samples at ``sample_rate`` Hz: amperes, volts and the state (gpi0 + 2 x gpi1)."""

    sample_rate: int
    current: Floats
    voltage: Floats
    state: States
    first: int = 0  # the instrument's index of sample 0

    def __len__(self) -> int:
        return len(self.current)

    @property
    def power(self) -> Floats:
        """Watts, sample by sample."""
        return self.current * self.voltage

    def seconds(self) -> float:
        return len(self) / self.sample_rate


def assemble(sample_rate: int, chunks: Mapping[str, Sequence[Chunk]]) -> PowerTrace:
    """The trace every signal of :data:`SIGNALS` covers; PowerError for a missing signal or a
    gap inside one."""
    spans = {name: _joined(name, chunks.get(name, ())) for name in SIGNALS}
    start = max(first for first, _ in spans.values())
    stop = min(first + len(data) for first, data in spans.values())
    if stop <= start:
        raise PowerError("the instrument's signals share no samples",
                         "check that current, voltage and both inputs were streaming")

    def span(name: str) -> npt.NDArray[np.generic]:
        first, data = spans[name]
        return data[start - first:stop - first]

    state = (span("gpi0").astype(np.uint8) | (span("gpi1").astype(np.uint8) << 1)
             ).astype(np.uint8)
    return PowerTrace(sample_rate, span("current").astype(np.float64),
                      span("voltage").astype(np.float64), state, start)


def state_so_far(gpi0: Sequence[Chunk], gpi1: Sequence[Chunk]) -> States:
    """The two-bit state over the samples both inputs have sent (a recording still going on);
    empty before both have."""
    if not gpi0 or not gpi1:
        return np.zeros(0, np.uint8)
    (first0, bits0), (first1, bits1) = _joined("gpi0", gpi0), _joined("gpi1", gpi1)
    start, stop = max(first0, first1), min(first0 + len(bits0), first1 + len(bits1))
    if stop <= start:
        return np.zeros(0, np.uint8)
    low = bits0[start - first0:stop - first0].astype(np.uint8)
    high = bits1[start - first1:stop - first1].astype(np.uint8)
    return (low | (high << 1)).astype(np.uint8)


def _joined(name: str, chunks: Sequence[Chunk]) -> tuple[int, npt.NDArray[np.generic]]:
    if not chunks:
        raise PowerError(f"the instrument sent no {name} samples",
                         "check the instrument's connection and that the signal is enabled")
    ordered = sorted(chunks, key=lambda c: c.first)
    parts: list[npt.NDArray[np.generic]] = []
    expected = ordered[0].first
    for chunk in ordered:
        padding = expected - chunk.first
        if parts and 0 < padding < 8 and ordered[0].packed:  # the last byte's unused bits
            parts[-1] = parts[-1][:len(parts[-1]) - padding]
            expected = chunk.first
        if chunk.first != expected:
            raise PowerError(f"the instrument's {name} stream has a gap at sample {expected} "
                             f"(the next chunk starts at {chunk.first})",
                             "the host fell behind the instrument: lower power.sample_rate or "
                             "close other programs using the USB bus")
        samples = chunk.samples()
        parts.append(samples)
        expected += len(samples)
    return ordered[0].first, np.concatenate(parts)
