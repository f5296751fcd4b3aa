"""The memory probe: what a cache miss costs in each memory region of a silicon board,
measured on the board.

The firmware (``firmware_templates/selftest/memory_probe.c.j2``) walks a buffer in every
region that can hold one, one load per cache line and, where the region is writable, one store
per line. The buffers are twice the largest data cache of the Apollo parts, so in a cached
region every access of a walk misses; in the core's TCM, which is never cached, none does.
Each walk is a layer of the harness, so the board's cycle counter (and, on a PMU board, the
refill, write-back and stall events) measures it as it measures a model's layers. What a walk
costs beyond the same walk over TCM, per line, is the region's line-fill (or write-miss) cost
as the core sees it; :mod:`hpx_insight`'s ``hpx calibrate --memory`` turns it into the cycle
model's costs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import attrs
import jinja2

from hpx_core.boards import Board, MemoryRegion
from hpx_core.contract import FirmwareContribution, PlannedBuffer
from hpx_core.errors import UsageError
from hpx_core.firmware.templates import templates_root

LINE_BYTES = 32
"""The Cortex-M55's cache line (CMSIS_6 ``armv7m_cachel1.h``, ``__SCB_DCACHE_LINE_SIZE``)."""
WALK_BYTES = 128 * 1024
"""Twice the Apollo510's 64 KiB data cache: a walk in order over it evicts each line before
it is used again, so every access misses."""
EVENTS = ("L1D_CACHE_REFILL", "L1D_CACHE_WB", "STALL_BACKEND", "DTCM_ACCESS")
"""The PMU events counted beside the cycles (one pass of four counters): lines filled, dirty
lines written back, cycles the core waited on memory, and accesses that went to the TCM."""
ENGINE = "memory-probe"
Access = Literal["read", "write"]


@attrs.frozen
class ProbeBuffer:
    """A buffer in one region: writable (zero-initialized) or constant (loaded with the
    image), in the section the board's map gives for its kind."""

    region: str
    symbol: str
    writable: bool
    section: str
    uses: tuple[str, ...]


@attrs.frozen
class Walk:
    """One layer: ``lines`` accesses of one kind over one buffer."""

    region: str
    access: Access
    symbol: str
    lines: int = WALK_BYTES // LINE_BYTES

    @property
    def name(self) -> str:
        return f"{self.access} {self.region}"


def _buffer(region: MemoryRegion) -> ProbeBuffer | None:
    symbol = f"hpx_memprobe_{region.name.lower()}"
    if region.zero is not None:
        return ProbeBuffer(region.name, symbol, True, region.zero, region.uses)
    if region.init is not None:
        return ProbeBuffer(region.name, symbol, False, region.init, region.uses)
    return None


def probe_buffers(board: Board) -> tuple[ProbeBuffer, ...]:
    """A buffer in every region of ``board`` that a section can place one in and that is
    larger than a walk (:data:`WALK_BYTES`)."""
    found = [b for region in board.memory if region.length > WALK_BYTES
             for b in [_buffer(region)] if b is not None]
    if not any("tcm" in b.uses for b in found):
        raise UsageError(f"{board.name} has no TCM region to hold the probe's baseline walk",
                         "measure a board with a tightly coupled memory (an Apollo5 part)")
    return tuple(found)


def probe_walks(board: Board) -> tuple[Walk, ...]:
    """The layers: a read walk over every buffer, a write walk over every writable one; the
    TCM's walks first, as they are the baseline."""
    buffers = sorted(probe_buffers(board), key=lambda b: "tcm" not in b.uses)
    return tuple(Walk(b.region, access, b.symbol) for b in buffers
                 for access in (("read", "write") if b.writable else ("read",)))


def baseline_region(walks: Sequence[Walk]) -> str:
    """The region the other walks are measured against (the first: the TCM's)."""
    return walks[0].region


def memory_probe_contribution(board: Board) -> FirmwareContribution:
    """The probe's glue: one generated C file, with its buffers listed for the placement
    check (each must link in the region it was written for)."""
    root = templates_root() / "selftest"
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(root)),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    buffers = probe_buffers(board)
    walks = probe_walks(board)
    text = env.get_template("memory_probe.c.j2").render(
        buffers=buffers, walks=walks, line=LINE_BYTES, walk_bytes=WALK_BYTES)
    planned = tuple(PlannedBuffer(f"memory probe buffer in {b.region}", b.symbol, WALK_BYTES,
                                  _uses_of(board, b.region)) for b in buffers)
    return FirmwareContribution(files={"memory_probe.c": text}, sources=("memory_probe.c",),
                                buffers=planned)


def _uses_of(board: Board, region: str) -> tuple[str, ...]:
    """A use word only ``region`` has among the board's regions (the placement check finds
    the buffer there and nowhere else)."""
    own = next(r for r in board.memory if r.name == region)
    others = {word for r in board.memory if r.name != region for word in r.uses}
    unique = tuple(word for word in own.uses if word not in others)
    return unique or own.uses
