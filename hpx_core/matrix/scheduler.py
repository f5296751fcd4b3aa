"""Running the cells: worker threads, each taking the next cell it may start through the pipeline.

The pipeline's ``on_stage`` callback is where a cell takes what its next stage needs and gives
back what the last one held: a build slot for firmware generation and the build, an emulator,
the board itself or a free board farm place for the run (:mod:`.resources`); the cell's run goes
to the place it took. Cells of one model (on one board, with one toolchain) do not build side by
side while another cell can: the later finds the model's units in the compiler cache instead of
compiling them beside the earlier. Engine libraries: the first cell of a library group goes
through firmware generation (where its engine builds or finds the library) before the group's
other cells start, so they find it made instead of queueing on its lock; should they meet a lock
anyway (another process building it), they say what they wait for and lend their build slot to
other cells meanwhile (:mod:`hpx_core.locks`). Stopping: no new cell starts, a cell waiting for
a resource gives up (interrupted), and a stage that runs finishes.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import attrs

from hpx_core.locks import listening
from hpx_core.matrix.cell import CellInterruptedError, CellResult, Stopping
from hpx_core.matrix.plan import PlannedCell
from hpx_core.matrix.resources import POLL_S, PlaceSlot, Resources, Slots, take_one

BUILD_STAGES = ("firmware generation", "build")
RUN_STAGE = "run, capture and results"
LIBRARY_MADE = "build"  # the stage after the one that makes engine libraries
BUILT = "kernel verification"  # the stage after the build


def _shares(planned: PlannedCell) -> tuple[str, str, str]:
    """What cells' app builds share through the compiler cache (:mod:`hpx_core.firmware.
    debug_paths`) beyond the harness: the model's compiled units (its data, inputs and layers),
    for one board and toolchain, whatever the engine's backend or variant."""
    cell = planned.cell
    return (str(cell.model.path), cell.board, cell.toolchain)


@attrs.define
class _BuildClaim:
    """A cell's mark on what it builds (:func:`_shares`), taken off once: when its build is
    over, or when the cell ends before."""

    shares: tuple[str, str, str]
    held: bool = True


@attrs.frozen
class WorkerState:
    """What one worker does now: its cell and the stage (or what it waits for)."""

    worker: int
    cell: str | None = None
    activity: str = "idle"


@attrs.frozen
class Progress:
    """A snapshot of the matrix: cells by status, the queue, every worker, the cell just done."""

    total: int
    finished: Mapping[str, int]
    queued: int
    workers: tuple[WorkerState, ...]
    stopping: bool
    just_finished: CellResult | None = None

    @property
    def waiting(self) -> int:
        """Cells not yet started and running cells waiting for a resource or a lock."""
        return self.queued + sum(1 for w in self.workers if w.activity.startswith("waiting"))


Place = Callable[[], str | None]
RunOne = Callable[[PlannedCell, Callable[[str], None], Stopping, Place], CellResult]
"""Runs a cell: its stages call ``on_stage``; ``place()`` names the farm place it took."""


class StageGate:
    """One cell's hold on the resource its current stage needs."""

    def __init__(self, planned: PlannedCell, resources: Resources, stop: threading.Event,
                 say: Callable[[str], None]) -> None:
        self._board = planned.cell.board
        self._resources, self._stop, self._say = resources, stop, say
        self._held: Slots | None = None
        self._lent: Slots | None = None
        self._stage = ""
        self._place: str | None = None

    def place(self) -> str | None:
        """The board farm place this cell took for its run (None: it runs here)."""
        return self._place

    def enter(self, stage: str) -> None:
        """Called as ``stage`` starts: give back the last stage's resource, take this one's."""
        self._stage = stage
        needed = self._needed(stage)
        if self._held is None or self._held not in needed:
            self.close()
            if needed:
                self._take(needed, stage)
        self._say(stage if self._place is None else f"{stage} on place {self._place}")

    def close(self) -> None:
        if self._held is not None:
            self._held.give_back()
            self._held = None

    def lend(self, what: str) -> None:
        """A lock wait began (another process builds ``what``): let other cells use the slot."""
        self._lent = self._held
        self._held = None
        if self._lent is not None:
            self._lent.give_back()
        self._say(f"waiting for {what}")

    def take_back(self, _what: str) -> None:
        """The wait is over: take a slot again before going on."""
        lent, self._lent = self._lent, None
        if lent is not None:
            self._take((lent,), self._stage)
        self._say(self._stage)

    def _take(self, needed: tuple[Slots, ...], stage: str) -> None:
        """Take a slot of one of ``needed`` (the first free); a place taken is the run's."""
        taken = next((s for s in needed if s.try_take()), None)
        if taken is None:
            what = needed[0].name if len(needed) == 1 else (
                "one of " + ", ".join(s.name for s in needed))
            self._say(f"waiting for {what} ({stage})")
            taken = take_one(needed, self._stop)
            if taken is None:
                raise CellInterruptedError(f"the matrix stopped while this cell waited "
                                           f"for {what}")
        self._held = taken
        if isinstance(taken, PlaceSlot):
            self._place = taken.place

    def _needed(self, stage: str) -> tuple[Slots, ...]:
        if stage in BUILD_STAGES:
            return (self._resources.builds,)
        if stage == RUN_STAGE:
            return self._resources.runners_for(self._board)
        return ()


class Scheduler:
    """Runs ``cells`` on ``workers`` threads (but not those ``done`` already, a resumed run's);
    :meth:`run` returns the results in plan order, without the cells a stop left unstarted."""

    def __init__(self, cells: Sequence[PlannedCell], run_one: RunOne, resources: Resources,
                 *, workers: int, stop: threading.Event,
                 on_progress: Callable[[Progress], None] | None = None,
                 done: Sequence[CellResult] = ()) -> None:
        finished = {r.id for r in done}
        self._queue = [p for p in cells if p.cell.id not in finished]
        self._order = [p.cell.id for p in cells]
        self._run_one, self._resources, self._stop = run_one, resources, stop
        self._on_progress = on_progress
        self._reporting = threading.Lock()
        self._workers = [WorkerState(i) for i in range(max(1, workers))]
        self._results: dict[str, CellResult] = {r.id: r for r in done}
        self._opening: set[object] = set()
        self._ready: set[object] = set()
        self._building: Counter[tuple[str, str, str]] = Counter()
        self._cond = threading.Condition()

    def run(self) -> list[CellResult]:
        threads = [threading.Thread(target=self._work, args=(i,), name=f"hpx-matrix-{i}")
                   for i in range(len(self._workers))]
        for thread in threads:
            thread.start()
        try:
            _join(threads)
        except KeyboardInterrupt:  # no handler installed (a notebook, say): stop, then finish
            self._stop.set()
            _join(threads)
        return [self._results[cell] for cell in self._order if cell in self._results]

    def not_started(self) -> list[PlannedCell]:
        """Cells the stop left in the queue."""
        with self._cond:
            return list(self._queue)

    def _work(self, index: int) -> None:
        while (taken := self._next()) is not None:
            planned, claim = taken
            group = planned.library_group

            def say(activity: str, cell: str = planned.cell.id) -> None:
                self._set(index, cell, activity)

            gate = StageGate(planned, self._resources, self._stop, say)

            def on_stage(stage: str, gate: StageGate = gate, group: object = group,
                         claim: _BuildClaim = claim) -> None:
                if stage == LIBRARY_MADE:
                    self._library_made(group)
                if stage == BUILT:
                    self._built(claim)
                gate.enter(stage)

            try:
                with listening(gate.lend, gate.take_back):
                    result = self._run_one(planned, on_stage, self._stop.is_set, gate.place)
            finally:
                gate.close()
                self._library_made(group)
                self._built(claim)
            self._finish(index, result)
        self._set(index, None, "idle")

    def _next(self) -> tuple[PlannedCell, _BuildClaim] | None:
        """The first queued cell whose library group is made, or not being made by another;
        of those, the first whose model no other cell is building, when there is one. With it,
        its mark on what it builds, taken in the same step."""
        with self._cond:
            while not self._stop.is_set() and self._queue:
                free = [i for i, planned in enumerate(self._queue)
                        if planned.library_group in self._ready
                        or planned.library_group not in self._opening]
                if free:
                    chosen = next((i for i in free
                                   if not self._building[_shares(self._queue[i])]), free[0])
                    planned = self._queue.pop(chosen)
                    self._opening.add(planned.library_group)
                    claim = _BuildClaim(_shares(planned))
                    self._building[claim.shares] += 1
                    return planned, claim
                self._cond.wait(POLL_S)
            return None

    def _built(self, claim: _BuildClaim) -> None:
        """A cell's build is over (or it ended before): its model's units are in the cache."""
        with self._cond:
            if claim.held:
                claim.held = False
                self._building[claim.shares] -= 1

    def _library_made(self, group: object) -> None:
        with self._cond:
            self._ready.add(group)
            self._cond.notify_all()

    def _set(self, index: int, cell: str | None, activity: str) -> None:
        with self._cond:
            self._workers[index] = WorkerState(index, cell, activity)
        self._report(None)

    def _finish(self, index: int, result: CellResult) -> None:
        with self._cond:
            self._results[result.id] = result
            self._workers[index] = WorkerState(index)
        self._report(result)

    def _report(self, finished: CellResult | None) -> None:
        if self._on_progress is None:
            return
        with self._reporting:  # one report at a time, in order
            with self._cond:
                counts = Counter("resumed" if r.resumed else r.status
                                 for r in self._results.values())
                snapshot = Progress(len(self._order), dict(counts), len(self._queue),
                                    tuple(self._workers), self._stop.is_set(), finished)
            self._on_progress(snapshot)


def _join(threads: Sequence[threading.Thread]) -> None:
    for thread in threads:
        while thread.is_alive():
            thread.join(POLL_S)  # short waits keep the main thread free for signals
