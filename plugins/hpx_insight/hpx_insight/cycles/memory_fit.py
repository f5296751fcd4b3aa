"""Fitting the memory costs no public document gives, on a named calibration set.

Each row is one measured program or operator: its measured cycles, what the core model alone
estimates for it, and how many of each memory event it caused (line fills per region kind,
PMU scopes around it). The unknowns are each event's cost in cycles; the fit chooses the
non-negative costs that minimize the squared *relative* error over the rows (a 5 ms model and a
900-cycle operator weigh alike), exactly, by trying every subset of free costs (the rest at
zero) with least squares: with four unknowns that is sixteen small solves. The leave-one-out
error refits without each group of rows (a program and its operators) and predicts that group.

A cost a public document ranks above another (``at_least``: Ambiq ranks MRAM slower than shared
SRAM) is fitted as the lower cost plus a non-negative extra: the same non-negative solve then
keeps the ranking, and where the rows cannot tell the two apart the extra is 0 and the dearer
cost sits at its documented bound instead of at 0.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Mapping, Sequence

import attrs


@attrs.frozen
class FitRow:
    """One measurement of the calibration set."""

    name: str
    group: str  # rows left out together in the leave-one-out error (one program)
    measured: float
    core: float  # the core model's estimate, with no memory costs
    events: Mapping[str, float]  # event -> how many (line fills by kind, scopes)


@attrs.frozen
class MemoryFit:
    costs: dict[str, float]  # event -> cycles each
    errors: dict[str, float]  # row -> relative error of the fitted estimate
    held_out: dict[str, float]  # row -> relative error, its group left out of the fit

    def predict(self, row: FitRow) -> float:
        return row.core + sum(self.costs.get(k, 0.0) * n for k, n in row.events.items())


def _solve(rows: Sequence[FitRow], events: Sequence[str]) -> dict[str, float]:
    import numpy as np

    scale = np.array([1.0 / r.measured for r in rows])
    matrix = np.array([[r.events.get(e, 0.0) for e in events] for r in rows]) * scale[:, None]
    target = np.array([r.measured - r.core for r in rows]) * scale
    best: tuple[float, dict[str, float]] = (float(np.sum(target ** 2)), {e: 0.0 for e in events})
    for n in range(1, len(events) + 1):
        for free in itertools.combinations(range(len(events)), n):
            solved, *_ = np.linalg.lstsq(matrix[:, free], target, rcond=None)
            if np.any(solved < 0):
                continue
            residual = float(np.sum((matrix[:, free] @ solved - target) ** 2))
            if residual < best[0] - 1e-15:
                costs = {e: 0.0 for e in events}
                costs.update({events[k]: float(v) for k, v in zip(free, solved, strict=True)})
                best = (residual, costs)
    return best[1]


def _ranked_solve(rows: Sequence[FitRow], events: Sequence[str],
                  at_least: Mapping[str, str]) -> dict[str, float]:
    """:func:`_solve` with each ``at_least`` cost (dearer -> cheaper) at least its cheaper
    one: a dearer event also counts as a cheaper one, and its own cost is the extra."""
    shifted = [attrs.evolve(r, events={**r.events, **{
        cheaper: r.events.get(cheaper, 0.0) + r.events.get(dearer, 0.0)
        for dearer, cheaper in at_least.items()}}) for r in rows]
    costs = _solve(shifted, events)
    return costs | {dearer: costs[dearer] + costs[cheaper]
                    for dearer, cheaper in at_least.items()}


def fit_memory(rows: Sequence[FitRow], at_least: Mapping[str, str] | None = None
               ) -> MemoryFit:
    """The non-negative event costs that best explain ``rows``, with their errors; each cost
    ``at_least`` names (dearer -> cheaper, a documented ranking) no lower than its cheaper."""
    ranking = dict(at_least or {})
    events = sorted({e for r in rows for e in r.events} | {*ranking, *ranking.values()})
    costs = _ranked_solve(rows, events, ranking)
    fitted = MemoryFit(costs, {}, {})
    errors = {r.name: fitted.predict(r) / r.measured - 1 for r in rows}
    held_out: dict[str, float] = {}
    for group in sorted({r.group for r in rows}):
        rest = [r for r in rows if r.group != group]
        partial = MemoryFit(_ranked_solve(rest, events, ranking), {}, {}) if rest else fitted
        held_out |= {r.name: partial.predict(r) / r.measured - 1
                     for r in rows if r.group == group}
    return MemoryFit(costs, errors, held_out)


def summary(errors: Mapping[str, float]) -> tuple[float, float]:
    """Median and largest absolute relative error."""
    absolute = [abs(e) for e in errors.values()]
    return statistics.median(absolute), max(absolute)
