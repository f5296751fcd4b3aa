"""May this engine run on this board? Answered from the baseline's license data.

The Ambiq Apollo SDK License allows execution only on Ambiq-manufactured CPUs, so the pipeline
asks here before fetching or building anything, and the answer names what to choose instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import attrs

from hpx_core.errors import LicenseError
from hpx_core.sources.baseline import Baseline, RunsOn, load_baseline

AMBIQ = "Ambiq"
_WHY: dict[RunsOn, str] = {
    "any": "may run on any board",
    "ambiq-cpu": "permits execution only on Ambiq-manufactured CPUs",
    "apollo-hardware": "drives Apollo hardware, so it runs only on Apollo boards",
}


def _components(value: Iterable[Component]) -> tuple[Component, ...]:
    return tuple(value)


class BoardLike(Protocol):
    """The two facts about a board this check needs (``hpx_core.boards.Board`` has both)."""

    @property
    def name(self) -> str: ...

    @property
    def cpu_vendor(self) -> str: ...


@attrs.frozen
class Component:
    """A repository or package an engine build contains, with its license."""

    name: str
    license: str
    runs_on: RunsOn


@attrs.frozen
class Verdict:
    """The answer: allowed, or the components whose license forbids this CPU."""

    engine: str
    backend: str | None
    cpu_vendor: str
    blockers: tuple[Component, ...] = attrs.field(converter=_components)

    @property
    def allowed(self) -> bool:
        return not self.blockers


def runs_on_vendor(runs_on: RunsOn, cpu_vendor: str) -> bool:
    """Whether code of this class may execute on a CPU made by ``cpu_vendor``."""
    return runs_on == "any" or cpu_vendor == AMBIQ


def components(
    engine: str, backend: str | None, baseline: Baseline | None = None
) -> tuple[Component, ...]:
    """Everything an engine build (with ``backend``, or all backends when None) contains."""
    base = baseline or load_baseline()
    repos = [Component(p.name, p.license, p.runs_on) for p in base.pins_for(engine, backend)]
    pkgs = [Component(p.name, p.license, p.runs_on) for p in base.packages_for(engine)]
    return (*repos, *pkgs)


def may_run(
    engine: str, backend: str | None, cpu_vendor: str, baseline: Baseline | None = None
) -> Verdict:
    """Whether ``engine``/``backend`` may execute on a CPU made by ``cpu_vendor``."""
    parts = components(engine, backend, baseline)
    blockers = [c for c in parts if not runs_on_vendor(c.runs_on, cpu_vendor)]
    return Verdict(engine=engine, backend=backend, cpu_vendor=cpu_vendor, blockers=blockers)


def alternatives(cpu_vendor: str, baseline: Baseline | None = None) -> tuple[str, ...]:
    """Engine/backend choices that may run on ``cpu_vendor``, spelled for a hint."""
    base = baseline or load_baseline()
    found: list[str] = []
    for name, spec in sorted(base.engines.items()):
        choices: list[str | None] = [*spec.backends] or [None]
        ok = [b for b in choices if may_run(name, b, cpu_vendor, base).allowed]
        if ok and ok == choices:
            found.append(name if not spec.backends else f"{name} ({', '.join(map(str, ok))})")
        elif ok:
            found += [f"{name} --backend {b}" for b in ok if b]
    return tuple(found)


def check_may_run(
    engine: str,
    backend: str | None,
    board: BoardLike,
    known_boards: Iterable[BoardLike] | None = None,
    baseline: Baseline | None = None,
) -> None:
    """Raise :class:`LicenseError` unless ``engine``/``backend`` may run on ``board``.

    The error names the boards among ``known_boards`` (default: every known board) that may.
    """
    if known_boards is None:
        from hpx_core.boards import all_boards

        known_boards = all_boards().values()
    verdict = may_run(engine, backend, board.cpu_vendor, baseline)
    if verdict.allowed:
        return
    which = f"{engine} (backend {backend})" if backend else engine
    parts = ", ".join(f"{c.name} is {c.license}" for c in verdict.blockers)
    why = "; ".join(sorted({_WHY[c.runs_on] for c in verdict.blockers}))
    able = sorted(
        b.name for b in known_boards if may_run(engine, backend, b.cpu_vendor, baseline).allowed
    )
    where = ", ".join(able) if able else "boards with an Ambiq-manufactured CPU (Apollo EVBs)"
    instead = ", ".join(alternatives(board.cpu_vendor, baseline)) or "none"
    raise LicenseError(
        f"{which} may not run on board {board.name!r} (CPU by {board.cpu_vendor}): {parts}, "
        f"which {why}",
        f"boards that may run it: {where}; engines that may run on {board.name}: {instead}",
    )
