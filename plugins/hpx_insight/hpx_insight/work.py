"""What each layer executed: the plugin's counts joined with the code, per instruction.

A layer's slot holds every instruction of its windows over all counted passes; the harness
subtracts one calibration pair (an empty begin/end) per call from SysTick's spans, so the same
pair is subtracted here, instruction class by instruction class, and the layer's instructions
per pass come out as the counter's. The reserved slot's windows after the calibration pairs are
the whole inferences (warm-up included), each less one pair, as the harness counts them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import attrs

from hpx_core.sdk import RunError
from hpx_insight.classes import CLASSES
from hpx_insight.disasm import Code, Instruction
from hpx_insight.raw import InsnCount, MemoryUse, RawProfile, RawSlot

MEMORY_KEYS = ("loads", "stores", "bytes_read", "bytes_written")
MISS_KEYS = ("read_misses", "write_misses", "read_misses_alone", "write_misses_alone")


@attrs.frozen
class Executed:
    """One instruction address over a layer's passes."""

    insn: Instruction
    size: int
    count: int
    fall: int  # executions after which the next address ran (not taken, for a branch)
    memory: tuple[MemoryUse, ...] = ()
    icache_misses: int = 0  # of the translation blocks this instruction ended

    @property
    def taken(self) -> int:
        return self.count - self.fall if self.insn.branch else 0

    def classes(self) -> Counter[str]:
        kind = self.insn.kind
        if kind != "branch":
            return Counter({kind: self.count})
        return Counter({"branch_taken": self.count - self.fall,
                        "branch_not_taken": self.fall})


@attrs.frozen
class Work:
    """What one slot executed: its instructions, with the pair to subtract ``pairs`` times."""

    executed: tuple[Executed, ...]
    pair: tuple[Executed, ...]
    pairs: int
    passes: int
    per_pass: tuple[int, ...]  # instructions per pass, as the counter counts them

    def classes(self) -> dict[str, int]:
        """Instructions by class over all passes, the calibration pairs taken out."""
        total = sum((e.classes() for e in self.executed), Counter[str]())
        pair = sum((e.classes() for e in self.pair), Counter[str]())
        out = {name: total[name] - self.pairs * pair[name] for name in CLASSES}
        out["other"] += sum(self.per_pass) - sum(out.values())  # a pair that was not all alike
        return out

    def memory(self, regions: int, keys: tuple[str, ...] = MEMORY_KEYS
               ) -> list[dict[str, int]]:
        """Loads, stores, bytes (and cache misses, with ``keys``) per region over all passes,
        the pairs taken out (not from misses: the one pair the profile keeps ran cold, the
        others hit)."""
        sums = [Counter[str]() for _ in range(regions + 1)]
        pairs = 0 if keys == MISS_KEYS else self.pairs
        for weight, group in ((1, self.executed), (-pairs, self.pair)):
            for e in group:
                for m in e.memory:
                    sums[m.region].update({k: weight * getattr(m, k) for k in keys})
        return [{k: s[k] for k in keys} for s in sums]

    def icache_misses(self) -> int:
        """Instruction-cache misses over all passes (see :meth:`memory` for the pairs)."""
        return sum(e.icache_misses for e in self.executed)


@attrs.frozen
class Layer:
    index: int
    name: str
    op: str
    calls: int  # per pass
    work: Work


def _executed(insns: Iterable[InsnCount], code: Code) -> tuple[Executed, ...]:
    return tuple(Executed(code.at(i.address), i.size, i.count, i.fall, i.memory,
                          i.icache_misses) for i in insns)


def _per_pass(windows: tuple[int, ...], passes: int, pair: float) -> tuple[int, ...]:
    if passes <= 0 or len(windows) % passes:
        raise RunError(f"a layer was measured {len(windows)} times over {passes} passes",
                       "the profile pass and the firmware disagree: report this ELF")
    calls = len(windows) // passes
    return tuple(round(sum(windows[p * calls:(p + 1) * calls]) - calls * pair)
                 for p in range(passes))


@attrs.frozen
class SlotPlan:
    """How the harness used the slots in this run (from its START and CAL records)."""

    reserved: int
    passes: int  # counted per-layer passes (iterations)
    cal_repeats: int


def pair_mean(raw: RawProfile, plan: SlotPlan) -> float:
    reserved = raw.slots.get(plan.reserved)
    if reserved is None or len(reserved.windows) < plan.cal_repeats:
        raise RunError("the profile pass saw no calibration pairs",
                       "the firmware did not run its calibration: report this ELF")
    return sum(reserved.windows[:plan.cal_repeats]) / plan.cal_repeats


def layer_work(raw: RawProfile, code: Code, plan: SlotPlan,
               names: Mapping[int, tuple[str, str]]) -> tuple[Layer, ...]:
    """Every measured layer's work, in index order."""
    mean = pair_mean(raw, plan)
    pair = _executed(raw.slots[plan.reserved + 1].insns, code) if (
        plan.reserved + 1 in raw.slots) else ()
    layers = []
    for index, slot in sorted(raw.slots.items()):
        if index >= plan.reserved or not slot.windows:
            continue
        per_pass = _per_pass(slot.windows, plan.passes, mean)
        calls = len(slot.windows) // plan.passes
        name, op = names.get(index, (f"layer_{index}", "unknown"))
        work = Work(_executed(slot.insns, code), pair, len(slot.windows), plan.passes, per_pass)
        layers.append(Layer(index, name, op, calls, work))
    return tuple(layers)


def whole_work(raw: RawProfile, code: Code, plan: SlotPlan) -> Work:
    """The whole inferences (warm-up and counted), each less one pair, like the harness's."""
    slot: RawSlot = raw.slots[plan.reserved]
    wholes = slot.windows[plan.cal_repeats:]
    mean = pair_mean(raw, plan)
    pair = _executed(raw.slots[plan.reserved + 1].insns, code)
    # the reserved slot's histogram holds every calibration pair but the first, and the wholes
    pairs = plan.cal_repeats - 1 + len(wholes)
    per_pass = tuple(round(w - mean) for w in wholes)
    return Work(_executed(slot.insns, code), pair, pairs, len(wholes), per_pass)
