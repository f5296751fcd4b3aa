"""Which hardware counters a run captures, and in how many passes.

Names are Arm's PMU event names (CPU_CYCLES, INST_RETIRED, MVE_INST_RETIRED,
L1D_CACHE_REFILL, ...), read from the CMSIS PMU header of the pinned nsx-ambiq-sdk rather than
typed in here. CPU_CYCLES is the PMU's cycle counter, always captured; every other event takes
one 32-bit (chained) event counter, so a board counting ``pmu_counters`` events at once needs
several passes for more: each pass repeats warm-up and iterations with its own events, and the
host merges the passes by layer identity. DWT-only boards capture cycles and say so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import attrs

from hpx_core.boards.model import Board
from hpx_core.errors import ConfigError, ResultsError
from hpx_core.suggest import did_you_mean

PMU_HEADER = "modules/nsx-cmsis-core/Include/m-profile/armv8m_pmu.h"
CYCLES = "CPU_CYCLES"
_DEFINE = re.compile(r"^#define ARM_PMU_(\w+)\s+(0x[0-9A-Fa-f]+)\b", re.MULTILINE)


def pmu_events(sdk: Path) -> dict[str, int]:
    """Event name -> number, as the SDK's CMSIS header defines them."""
    text = (sdk / PMU_HEADER).read_text("utf-8", "replace")
    return {name: int(number, 16) for name, number in _DEFINE.findall(text)}


def _passes(value: Iterable[Iterable[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p) for p in value)


@attrs.frozen
class CounterPlan:
    """The events of each pass (CPU_CYCLES is implicit in every pass) and what was dropped."""

    passes: tuple[tuple[str, ...], ...] = attrs.field(converter=_passes)
    note: str | None = None


def plan_counters(board: Board, requested: Sequence[str], known: Mapping[str, int]) -> CounterPlan:
    """Check ``requested`` against ``known`` events and split it into passes for ``board``."""
    wanted = list(dict.fromkeys(name.upper() for name in requested))
    if board.emulated:
        if wanted:
            raise ConfigError(
                f"{board.name} counts instructions under emulation; it has no hardware counters",
                "drop profiling.counters, or profile on an Apollo board",
            )
        return CounterPlan([()])
    events = [name for name in wanted if name != CYCLES]
    per_pass = board.silicon.pmu_counters if board.silicon else 0
    if per_pass == 0:
        note = f"{board.name} has the DWT cycle counter only: only cycles are captured"
        return CounterPlan([()], f"{note} ({', '.join(events)} not)" if events else note)
    for name in wanted:
        if name not in known:
            raise ConfigError(
                f"unknown PMU event {name!r}{did_you_mean(name, known)}",
                "use Arm's PMU event names, e.g. INST_RETIRED, L1D_CACHE_REFILL",
            )
    if not events:
        return CounterPlan([()])
    return CounterPlan([events[i : i + per_pass] for i in range(0, len(events), per_pass)])


Pass = Mapping[int, tuple[str, Mapping[str, int]]]


def merge_passes(passes: Sequence[Pass]) -> dict[int, dict[str, int]]:
    """Per-layer counts of every pass, joined by layer index and checked by layer name.

    Each pass maps a layer index to (layer name, {event: count}); a pass that saw other layers
    (a different model, or a firmware that changed between passes) is refused.
    """
    merged: dict[int, dict[str, int]] = {}
    names: dict[int, str] = {}
    for number, one in enumerate(passes):
        if number and set(one) != set(names):
            raise ResultsError(
                f"pass {number + 1} measured layers {sorted(one)}, pass 1 {sorted(names)}",
                "every pass must run the same firmware on the same model",
            )
        for index, (name, counts) in one.items():
            if names.setdefault(index, name) != name:
                raise ResultsError(
                    f"layer {index} is {name!r} in pass {number + 1} but {names[index]!r} before",
                    "every pass must run the same firmware on the same model",
                )
            for event, count in counts.items():
                if (
                    merged.setdefault(index, {}).setdefault(event, count) != count
                    and event != CYCLES
                ):
                    raise ResultsError(f"event {event} of layer {index} counted twice", "")
    return merged
