"""The plugin's output: per slot (a layer, or the reserved slot), its windows' instruction
totals and what every instruction address did in them.

A line-oriented text the plugin writes at QEMU's exit (``hpx-insight 2``): ``slot INDEX
WINDOWS``, then one ``w TOTAL`` per window, then ``i ADDR SIZE COUNT FALL IMISS`` per
instruction (executions, how often control fell through to the next address after it, and the
instruction-cache misses of the blocks it ended) followed by ``m REGION LOADS STORES BYTES_READ
BYTES_WRITTEN`` and the data cache's read and write misses, shared then alone
(:mod:`hpx_insight.caches`), per memory region it touched. The slot after the reserved one
holds the reserved slot's first window alone: the calibration pair.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from hpx_core.sdk import RunError

MAGIC = "hpx-insight 2"


@attrs.frozen
class MemoryUse:
    """One instruction's accesses to one region: executions that loaded or stored there
    (counted once per execution, by its first access), and bytes."""

    region: int
    loads: int
    stores: int
    bytes_read: int
    bytes_written: int
    read_misses: int = 0  # data-cache lines filled, in the cache every cached range shares
    write_misses: int = 0
    read_misses_alone: int = 0  # the same, had this range been the only one cached
    write_misses_alone: int = 0


@attrs.frozen
class InsnCount:
    address: int
    size: int
    count: int
    fall: int  # executions after which the next address ran
    icache_misses: int = 0  # of the translation blocks this instruction ended
    memory: tuple[MemoryUse, ...] = ()


@attrs.frozen
class RawSlot:
    index: int
    windows: tuple[int, ...]
    insns: tuple[InsnCount, ...]


@attrs.frozen
class RawProfile:
    regions: int  # the board's regions; index ``regions`` is everything else
    total: int  # every instruction the run executed (the wrap handler's left out)
    slots: dict[int, RawSlot]


def _bad(line: str) -> RunError:
    return RunError(f"the instruction-profile plugin wrote a line hpx cannot read: {line[:60]!r}",
                    "the plugin and hpx disagree: clear the hpx cache's insight folder")


def _numbers(fields: list[str], line: str, hex_first: bool = False) -> list[int]:
    try:
        return [int(f, 16) if hex_first and i == 0 else int(f) for i, f in enumerate(fields)]
    except ValueError:
        raise _bad(line) from None


@attrs.define
class _SlotReader:
    """The slot being read: its windows, its instructions, the last one's memory lines."""

    index: int
    windows: list[int] = attrs.field(factory=list)
    insns: list[InsnCount] = attrs.field(factory=list)
    memory: list[MemoryUse] = attrs.field(factory=list)

    def close_insn(self) -> None:
        if self.insns:
            self.insns[-1] = attrs.evolve(self.insns[-1], memory=tuple(self.memory))
        self.memory = []

    def slot(self) -> RawSlot:
        self.close_insn()
        return RawSlot(self.index, tuple(self.windows), tuple(self.insns))


def _slots(lines: Iterator[str]) -> Iterator[RawSlot]:
    reader: _SlotReader | None = None
    for line in lines:
        kind, *fields = line.split()
        if kind in ("slot", "end") and reader is not None:
            yield reader.slot()
        if kind == "end":
            return
        if kind == "slot":
            reader = _SlotReader(_numbers(fields, line)[0])
        elif reader is None:
            raise _bad(line)
        elif kind == "w":
            reader.windows.append(_numbers(fields, line)[0])
        elif kind == "i":
            reader.close_insn()
            if len(fields) != 5:
                raise _bad(line)
            address, size, count, fall, missed = _numbers(fields, line, hex_first=True)
            reader.insns.append(InsnCount(address, size, count, fall, missed))
        elif kind == "m":
            if len(fields) != 9:
                raise _bad(line)
            reader.memory.append(MemoryUse(*_numbers(fields, line)))
        else:
            raise _bad(line)
    raise RunError("the instruction-profile pass ended before the plugin finished its file",
                   "see QEMU's messages in the run's log")


def parse_raw(text: str) -> RawProfile:
    """Read the plugin's file; an incomplete or foreign one is a RunError."""
    lines = iter(text.splitlines())
    if next(lines, "") != MAGIC:
        raise RunError("the instruction-profile pass wrote no profile",
                       "see QEMU's messages in the run's log")
    head = {}
    for key in ("regions", "total"):
        line = next(lines, "")
        name, _, value = line.partition(" ")
        if name != key:
            raise _bad(line)
        head[key] = _numbers([value], line)[0]
    slots = {slot.index: slot for slot in _slots(lines)}
    return RawProfile(head["regions"], head["total"], slots)
