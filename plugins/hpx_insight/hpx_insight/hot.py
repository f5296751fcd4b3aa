"""A layer's hottest functions and basic blocks, each with the source line it comes from.

A basic block here is a run of consecutive instructions of one function that executed equally
often, ended by a branch: what the layer executed straight through. Functions are ranked by the
instructions they executed in the layer; each names the source line of its hottest instruction,
a block the line of its first, as the toolchain's symbolizer reads the DWARF.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

import attrs

from hpx_insight.work import Executed

TOP = 10


@attrs.frozen
class Block:
    start: int
    end: int  # one past the last instruction
    function: str
    executions: int
    instructions: int


@attrs.frozen
class Hot:
    """Where a function or a block is, with what it executed."""

    name: str
    address: int  # the address whose source line names it
    instructions: int
    executions: int = 0
    end: int = 0


def blocks(executed: Sequence[Executed]) -> list[Block]:
    """The layer's basic blocks as executed, in address order."""
    out: list[Block] = []
    last: Executed | None = None
    for e in sorted(executed, key=lambda x: x.insn.address):
        joins = (last is not None and out and not last.insn.branch
                 and last.insn.address + last.size == e.insn.address
                 and last.count == e.count and last.insn.function == e.insn.function)
        if joins:
            b = out[-1]
            out[-1] = attrs.evolve(b, end=e.insn.address + e.size,
                                   instructions=b.instructions + e.count)
        else:
            out.append(Block(e.insn.address, e.insn.address + e.size, e.insn.function, e.count,
                             e.count))
        last = e
    return out


def hot_functions(executed: Sequence[Executed], top: int = TOP) -> list[Hot]:
    totals: dict[str, int] = defaultdict(int)
    hottest: dict[str, Executed] = {}
    for e in executed:
        name = e.insn.function
        totals[name] += e.count
        if name not in hottest or e.count > hottest[name].count:
            hottest[name] = e
    ranked = sorted(totals, key=lambda n: (-totals[n], n))[:top]
    return [Hot(n, hottest[n].insn.address, totals[n]) for n in ranked]


def hot_blocks(executed: Sequence[Executed], top: int = TOP) -> list[Hot]:
    ranked = sorted(blocks(executed), key=lambda b: (-b.instructions, b.start))[:top]
    return [Hot(b.function, b.start, b.instructions, b.executions, b.end) for b in ranked]


def hot_json(items: Sequence[Hot], total: int, where: Mapping[int, tuple[str, str]],
             passes: int) -> list[dict[str, object]]:
    """Hot items for the profile document: per-pass instructions, share, file:line."""
    out: list[dict[str, object]] = []
    for h in items:
        _, location = where.get(h.address, ("??", "??:0"))
        entry: dict[str, object] = {
            "name": h.name, "address": f"0x{h.address:08x}", "location": location,
            "instructions": h.instructions / passes,
            "share": round(h.instructions / total, 4) if total else 0.0,
        }
        if h.end:
            entry |= {"end": f"0x{h.end:08x}", "executions": h.executions / passes}
        out.append(entry)
    return out
