"""May this engine run on this board? Answered from the licenses its pins declare.

Some licenses allow execution only on one vendor's CPUs (the Ambiq Apollo SDK License, say), so
the pipeline asks here before fetching or building anything, and the answer names what to
choose instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

import attrs

from hpx_core.errors import LicenseError
from hpx_core.sources.pins import PinSet


def _components(value: Iterable[Component]) -> tuple[Component, ...]:
    return tuple(value)


class BoardLike(Protocol):
    """The facts about a board this check needs (``hpx_core.boards.Board`` has them)."""

    @property
    def name(self) -> str: ...

    @property
    def cpu_vendor(self) -> str: ...

    @property
    def family(self) -> str: ...


@attrs.frozen
class Component:
    """A repository or package an engine build contains, with its license."""

    name: str
    license: str
    runs_on: str


@attrs.frozen
class Verdict:
    """The answer: allowed, or the components whose license forbids this board."""

    engine: str
    backend: str | None
    board: str
    blockers: tuple[Component, ...] = attrs.field(converter=_components)

    @property
    def allowed(self) -> bool:
        return not self.blockers


def may_execute(runs_on: str, board: BoardLike) -> bool:
    """Whether code whose license says ``runs_on`` may execute on ``board``."""
    kind, _, value = runs_on.partition(":")
    if kind == "cpu-vendor":
        return board.cpu_vendor == value
    if kind == "board-family":
        return board.family == value
    return runs_on == "any"


def why(runs_on: str) -> str:
    """What a ``runs_on`` restriction means, in words for an error message."""
    kind, _, value = runs_on.partition(":")
    if kind == "cpu-vendor":
        return f"permits execution only on {value}-manufactured CPUs"
    if kind == "board-family":
        return f"drives {value} hardware, so it runs only on {value} boards"
    return "may run on any board"


def components(catalog: PinSet, engine: str, backend: str | None) -> tuple[Component, ...]:
    """Everything an engine build (with ``backend``, or all backends when None) contains.

    An engine that declares no pins (its descriptor's ``pins`` is None) brings its sources
    itself: no pinned component restricts where it runs.
    """
    if engine not in catalog.engines:
        return ()
    repos = [Component(p.name, p.license, p.runs_on) for p in catalog.pins_for(engine, backend)]
    pkgs = [Component(p.name, p.license, p.runs_on) for p in catalog.packages_for(engine)]
    return (*repos, *pkgs)


def may_run(catalog: PinSet, engine: str, backend: str | None, board: BoardLike) -> Verdict:
    """Whether ``engine``/``backend`` may execute on ``board``."""
    parts = components(catalog, engine, backend)
    blockers = [c for c in parts if not may_execute(c.runs_on, board)]
    return Verdict(engine=engine, backend=backend, board=board.name, blockers=blockers)


def alternatives(catalog: PinSet, board: BoardLike) -> tuple[str, ...]:
    """Engine/backend choices that may run on ``board``, spelled for a hint."""
    found: list[str] = []
    for name, spec in sorted(catalog.engines.items()):
        choices: list[str | None] = [*spec.backends] or [None]
        ok = [b for b in choices if may_run(catalog, name, b, board).allowed]
        if ok and ok == choices:
            found.append(name if not spec.backends else f"{name} ({', '.join(map(str, ok))})")
        elif ok:
            found += [f"{name} --backend {b}" for b in ok if b]
    return tuple(found)


def check_may_run(
    catalog: PinSet,
    engine: str,
    backend: str | None,
    board: BoardLike,
    known_boards: Iterable[BoardLike],
) -> None:
    """Raise :class:`LicenseError` unless ``engine``/``backend`` may run on ``board``.

    The error names the boards among ``known_boards`` that may, and the engines that may run
    on this one.
    """
    verdict = may_run(catalog, engine, backend, board)
    if verdict.allowed:
        return
    which = f"{engine} (backend {backend})" if backend else engine
    parts = ", ".join(f"{c.name} is {c.license}" for c in verdict.blockers)
    reasons = "; ".join(sorted({why(c.runs_on) for c in verdict.blockers}))
    able = sorted(b.name for b in known_boards if may_run(catalog, engine, backend, b).allowed)
    where = ", ".join(able) if able else "none of the known boards"
    instead = ", ".join(alternatives(catalog, board)) or "none"
    raise LicenseError(
        f"{which} may not run on board {board.name!r} (CPU by {board.cpu_vendor}): {parts}, "
        f"which {reasons}",
        f"boards that may run it: {where}; engines that may run on {board.name}: {instead}",
    )
