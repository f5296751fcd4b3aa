"""The cycles of one slot's work on one core and memory system, by instruction class.

The work is cut into basic blocks (as :mod:`hpx_insight.hot` cuts them); each block is
scheduled once (:mod:`.pipeline`) and its cost multiplied by its executions; a loop body's
executions after the first cost its steady state. Taken branches add the core's refill, memory
accesses their region's wait states. The calibration pairs are costed the same way and taken
out, as the harness takes their instructions out of the counts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import attrs

from hpx_insight.cycles.cortex_m4 import m4_adjust, m4_latency, m4_timing
from hpx_insight.cycles.cortex_m55 import m55_latency, m55_timing
from hpx_insight.cycles.memory import RegionTiming
from hpx_insight.cycles.pipeline import Step, schedule
from hpx_insight.cycles.timing import Timing
from hpx_insight.disasm import Instruction
from hpx_insight.work import Executed, Work

_TARGET = re.compile(r"\b([0-9a-f]+)\s*<")


@attrs.frozen
class CoreModel:
    name: str
    timing: Callable[[Instruction, int], Timing]
    latency: Callable[[Instruction], int]
    dual_issue: bool
    adjust: Callable[[Step, Step | None], int] | None = None


CORES = {
    "cortex-m55": CoreModel("cortex-m55", m55_timing, m55_latency, True),
    "cortex-m4": CoreModel("cortex-m4", m4_timing, m4_latency, False, m4_adjust),
}


def _blocks(executed: Sequence[Executed]) -> list[list[Executed]]:
    out: list[list[Executed]] = []
    for e in sorted(executed, key=lambda x: x.insn.address):
        last = out[-1][-1] if out else None
        if (last is not None and not last.insn.branch and last.count == e.count
                and last.insn.address + last.size == e.insn.address
                and last.insn.function == e.insn.function):
            out[-1].append(e)
        else:
            out.append([e])
    return out


def _loops_to(block: list[Executed]) -> bool:
    last = block[-1]
    target = _TARGET.search(last.insn.operands)
    return bool(last.insn.branch and target and int(target[1], 16) == block[0].insn.address)


def _block_cycles(block: list[Executed], core: CoreModel) -> list[float]:
    steps = [Step(e.insn, e.size, core.timing(e.insn, e.size), core.latency(e.insn))
             for e in block]
    executions = block[0].count
    once = schedule(steps, dual=core.dual_issue, loop=False, adjust=core.adjust)
    if executions > 1 and _loops_to(block):
        steady = schedule(steps, dual=core.dual_issue, loop=True, adjust=core.adjust)
        return [a + (executions - 1) * b for a, b in zip(once, steady, strict=True)]
    return [c * executions for c in once]


def _classify(e: Executed, base: float, penalty: float, into: dict[str, float]) -> None:
    classes = e.classes()
    total = sum(classes.values()) or 1
    for name, count in classes.items():
        into[name] = into.get(name, 0.0) + base * count / total
    taken = "branch_taken" if e.insn.kind == "branch" else e.insn.kind
    into[taken] = into.get(taken, 0.0) + penalty


def executed_cycles(executed: Sequence[Executed], core: CoreModel) -> dict[str, float]:
    """The core's cycles of ``executed`` (instructions with their counts) by class."""
    out: dict[str, float] = {}
    for block in _blocks(executed):
        for e, base in zip(block, _block_cycles(block, core), strict=True):
            timing = core.timing(e.insn, e.size)
            taken = e.taken if e.insn.kind == "branch" else (e.count if timing.taken else 0)
            _classify(e, base, taken * timing.taken, out)
    return out


def work_cycles(work: Work, core: CoreModel) -> dict[str, float]:
    """The slot's core cycles over all its passes by class, the calibration pairs taken out."""
    total = executed_cycles(work.executed, core)
    pair = executed_cycles(work.pair, core)
    return {name: total.get(name, 0.0) - work.pairs * pair.get(name, 0.0)
            for name in set(total) | set(pair)}


@attrs.frozen
class MemoryPrices:
    """How a slot's memory events are priced on a silicon board: each profile range's region
    timing (None: no region of the board), the region code is fetched from, and whether the
    data misses are each range's own (``alone``) or the shared cache's."""

    timings: tuple[RegionTiming | None, ...]
    code: RegionTiming | None
    alone: bool = False


Event = tuple[str, str]  # (silicon region, "read_fill" | "write_miss" | "access")


def _events(executed: Sequence[Executed], prices: MemoryPrices, misses: bool = True
            ) -> Counter[Event]:
    out: Counter[Event] = Counter()
    for e in executed:
        if misses and e.icache_misses and prices.code is not None and prices.code.cached:
            out[(prices.code.name, "read_fill")] += e.icache_misses
        for use in e.memory:
            timing = prices.timings[use.region] if use.region < len(prices.timings) else None
            if timing is None:
                continue
            if not timing.cached:
                if timing.wait_states:
                    out[(timing.name, "access")] += use.loads + use.stores
            elif not misses:
                continue
            elif prices.alone:
                out[(timing.name, "read_fill")] += use.read_misses_alone
                out[(timing.name, "write_miss")] += use.write_misses_alone
            else:
                out[(timing.name, "read_fill")] += use.read_misses
                out[(timing.name, "write_miss")] += use.write_misses
    return out


def memory_events(work: Work, prices: MemoryPrices) -> Counter[Event]:
    """The slot's line fills, write misses and uncached accesses per silicon region over all
    its passes, the calibration pairs' accesses taken out (not their misses: the one pair the
    profile keeps ran cold, the others hit)."""
    total = _events(work.executed, prices)
    pair = _events(work.pair, prices, misses=False)
    total.subtract({k: work.pairs * n for k, n in pair.items()})
    return total


def event_cost(event: Event, lookup: Callable[[str], RegionTiming]) -> float:
    """Cycles one event costs (0 where the region's costs are not known)."""
    region, kind = event
    timing = lookup(region)
    if kind == "access":
        return float(timing.wait_states or 0)
    if timing.lines is None:
        return 0.0
    return timing.lines.read_fill if kind == "read_fill" else timing.lines.write_miss


def region_timings(names: Sequence[str], mapping: Mapping[str, str],
                   lookup: Callable[[str], RegionTiming]) -> list[RegionTiming | None]:
    """Each profile region's silicon timing; the last (no region of the map) has none."""
    return [lookup(mapping[name]) if name in mapping else None for name in names]
