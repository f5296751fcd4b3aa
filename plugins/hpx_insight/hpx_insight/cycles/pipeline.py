"""One basic block through an in-order core, instruction by instruction.

The block's instructions issue in order: each waits for the cycle after its predecessor (or
shares its cycle when the core dual-issues the pair), for the registers it reads (the cycle its
producer's result is ready) and for its pipe (busy for the beats it takes). What each
instruction adds to the block's time is its cost. A block that branches back to its own start
is a loop body: it is scheduled twice in a row and its later executions cost what the second
copy took (the overlap of one iteration with the next, loop-carried waits included).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from hpx_insight.cycles.registers import access
from hpx_insight.cycles.timing import Timing
from hpx_insight.disasm import Instruction


@attrs.frozen
class Step:
    """One instruction of a block as the core sees it."""

    insn: Instruction
    size: int
    timing: Timing
    latency: int


@attrs.define
class _State:
    last_issue: int = -1
    last: Step | None = None
    paired: bool = False
    pipes: dict[str, int] = attrs.field(factory=dict)
    ready: dict[str, int] = attrs.field(factory=dict)


def _pairs(step: Step, state: _State) -> bool:
    """Cortex-M55 dual issue: two 16-bit scalar instructions, one of them from the short list."""
    prev = state.last
    return (prev is not None and not state.paired and step.size == 2 and prev.size == 2
            and step.timing.pipe in ("alu", "none") and prev.timing.pipe in ("alu", "none")
            and (step.timing.pairs or prev.timing.pairs) and step.timing.cycles == 1
            and prev.timing.cycles == 1)


def _issue(step: Step, state: _State, dual: bool) -> int:
    """Schedule ``step``; its cost in cycles (what it adds to the block)."""
    together = dual and _pairs(step, state)
    earliest = state.last_issue if together else state.last_issue + 1
    uses = access(step.insn)
    for reg in uses.reads:
        earliest = max(earliest, state.ready.get(reg, 0))
    for reg in uses.offsets:
        earliest = max(earliest, state.ready.get(reg, 0) + step.timing.offsets_early)
    pipe = step.timing.pipe
    if pipe != "none":
        earliest = max(earliest, state.pipes.get(pipe, 0))
        state.pipes[pipe] = earliest + step.timing.cycles
    for reg in uses.writes:
        state.ready[reg] = earliest + step.latency
    cost = earliest - state.last_issue
    state.paired = together and earliest == state.last_issue
    state.last_issue, state.last = earliest, step
    return cost


def schedule(steps: Sequence[Step], *, dual: bool, loop: bool,
             adjust: Callable[[Step, Step | None], int] | None = None) -> list[int]:
    """Each step's cost over one execution (its steady state when ``loop``)."""
    state = _State()
    rounds = 2 if loop else 1
    costs: list[int] = []
    for _ in range(rounds):
        costs = []
        for step in steps:
            extra = adjust(step, state.last) if adjust else 0
            cost = _issue(step, state, dual) + extra
            state.last_issue += extra
            if step.timing.pipe in state.pipes:
                state.pipes[step.timing.pipe] += extra
            costs.append(cost)
    if not loop and costs:
        tail = max(state.pipes.values(), default=0) - state.last_issue - 1
        costs[-1] += max(tail, 0)  # the last beats of a block no loop overlaps
    return costs
