"""What-if placement: the estimate repriced for every plan of the buffers the silicon board can
hold, so a user sees where weights and arena should go before moving them.

The plans are the engine's own memory plan for the silicon board, asked again
(``hpx_plan_memory``), with each buffer in every region its use words allow
(:func:`hpx_core.sdk.passes.every_layout`: those that fit). The core's cycles do not move with
placement; only the memory is repriced: a buffer in TCM costs nothing beyond the core, in MRAM
or shared SRAM its line fills and write misses. The run's shared data cache held the default
plan's cached ranges, so a plan that caches the same ranges is priced with its misses; any other
plan with each range's misses as if it were cached alone (a bound that leaves out the ranges'
interference in the cache, said in the document).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hpx_insight.cycles.estimate import Estimate, SlotEstimate, reprice
from hpx_insight.cycles.memory import undetermined
from hpx_insight.profile import InstructionProfile

SHOWN_CHANGE = 0.01  # a layer "changes" when the plan moves its estimate by 1% or more


@attrs.frozen
class Placement:
    buffers: dict[str, str]  # planned buffer -> silicon region
    estimate: Estimate
    default: bool
    alone: bool  # priced with each range's misses alone (see the module's docstring)


def _cached_ranges(estimate: Estimate) -> frozenset[str]:
    system = estimate.memory
    return frozenset(name for name, region in estimate.regions.items()
                     if system.region(region).cached)


def price_plans(base: Estimate, profile: InstructionProfile,
                plans: Sequence[Mapping[str, str]], default: Mapping[str, str]
                ) -> list[Placement]:
    """Every plan of ``plans`` priced (``default``: the plan the run's estimate used)."""
    priced_default = reprice(base, profile, default)
    shared = _cached_ranges(priced_default)
    out = []
    for plan in plans:
        trial = reprice(base, profile, plan)
        alone = _cached_ranges(trial) != shared
        if alone:
            trial = reprice(base, profile, plan, alone=True)
        out.append(Placement(dict(plan), trial, dict(plan) == dict(default), alone))
    if not any(p.default for p in out):
        out.insert(0, Placement(dict(default), priced_default, True, False))
    return out


def _layer_span(indices: Sequence[int]) -> str:
    runs: list[list[int]] = []
    for index in sorted(indices):
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _moved(placement: Placement, default: Placement) -> str:
    moves = [f"{name} in {region} instead of {default.buffers.get(name, '?')}"
             for name, region in sorted(placement.buffers.items())
             if default.buffers.get(name) != region]
    return "; ".join(moves) or "the default plan"


def _changed_layers(placement: Placement, default: Placement) -> list[int]:
    before = {s.index: s for s in default.estimate.layers}
    return [s.index for s in placement.estimate.layers
            if _change(before[s.index], s) <= -SHOWN_CHANGE]


def _change(before: SlotEstimate, after: SlotEstimate) -> float:
    return after.cycles / before.cycles - 1 if before.cycles else 0.0


def best_line(placements: Sequence[Placement]) -> str:
    """One sentence: the cheapest plan and what it saves against the default."""
    default = next(p for p in placements if p.default)
    best = min(placements, key=lambda p: p.estimate.whole.cycles)
    board = default.estimate.board.name
    blind = undetermined(default.estimate.memory)
    caveat = (f"; {', '.join(blind)} priced at its least (not measured: hpx calibrate --memory)"
              if blind else "")
    if best is default or best.estimate.whole.cycles >= default.estimate.whole.cycles:
        return (f"placement on {board}: the default plan is the cheapest of "
                f"{len(placements)}{caveat}")
    change = _change(default.estimate.whole, best.estimate.whole)
    layers = _changed_layers(best, default)
    where = f" (layers {_layer_span(layers)})" if layers else ""
    shown = f"{change:+.0%}" if abs(change) >= 0.01 else f"{change:+.1%}"
    return (f"best placement on {board}: {_moved(best, default)}: {shown} estimated"
            f"{where}, {default.estimate.whole.cycles:,.0f} -> "
            f"{best.estimate.whole.cycles:,.0f} cycles{caveat}")


def placements_json(placements: Sequence[Placement]) -> list[dict[str, Any]]:
    """``cycle_estimate.json``'s ``placements``: one entry per priced plan."""
    return [{"buffers": p.buffers, "default": p.default,
             "misses": "alone" if p.alone else "shared",
             "estimated_cycles": round(p.estimate.whole.cycles, 1),
             "estimated_ms": round(p.estimate.milliseconds(p.estimate.whole.cycles), 4),
             "layers": {str(s.index): round(s.cycles, 1) for s in p.estimate.layers}}
            for p in placements]
