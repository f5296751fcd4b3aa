"""The scheduler with stand-in cells: library groups open first, boards run one cell at a time,
runs spread over a board's farm places one cell each, emulators and build slots bound the
parallel stages, and a stop starts nothing new."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock

from hpx_core.locks import hold
from hpx_core.matrix import Cell, CellResult, PlannedCell, Progress
from hpx_core.matrix.cell import CellInterruptedError
from hpx_core.matrix.resources import OnePerBoard, PlaceSlot, Resources, Slots, place_slots
from hpx_core.matrix.scheduler import Scheduler
from hpx_core.matrix.spec import ModelAxis
from hpx_core.pipeline import STAGE_NAMES


def _cell(model: str, backend: str, board: str = "qemu-m55") -> PlannedCell:
    cell = Cell(ModelAxis(Path(f"{model}.tflite")), "loops", backend, None, {}, board,
                "arm-none-eabi-gcc")
    group = ("loops", backend, None, board, "arm-none-eabi-gcc")  # boards never share here
    return PlannedCell(cell, {}, Path("/nonexistent") / cell.id, cell.id, group)


class Recorder:
    """Runs stand-in cells through every stage name, noting when each stage starts."""

    def __init__(self, seconds: dict[str, float] | None = None) -> None:
        self.seconds = seconds or {}
        self.events: list[tuple[float, str, str]] = []
        self.lock = threading.Lock()
        self.inside: dict[str, int] = {}
        self.most: dict[str, int] = {}

    def __call__(self, planned: PlannedCell, on_stage: Callable[[str], None],
                 stopping: Callable[[], bool], place: Callable[[], str | None]) -> CellResult:
        try:
            for stage in STAGE_NAMES:
                on_stage(stage)
                where = place() or planned.cell.board  # a place, else the board
                with self.lock:
                    self.events.append((time.monotonic(), planned.cell.id, stage))
                    running = stage == "run, capture and results"
                    self.inside[where] = self.inside.get(where, 0) + running
                    self.most[where] = max(self.most.get(where, 0), self.inside[where])
                time.sleep(self.seconds.get(stage, 0.0))
                with self.lock:
                    self.inside[where] -= running
        except CellInterruptedError as error:
            return CellResult(planned, "interrupted", cause=error.message)
        return CellResult(planned, "complete", place=place())

    def started(self, cell: str, stage: str) -> float:
        return next(t for t, c, s in self.events if c == cell and s == stage)


def _resources(builds: int = 4, emulators: int = 4,
               places: dict[str, list[str]] | None = None) -> Resources:
    return Resources(Slots("a build slot", builds), Slots("an emulator", emulators),
                     OnePerBoard(), place_slots(places or {}))


def test_the_first_cell_of_a_library_group_makes_it_before_the_others_start() -> None:
    cells = [_cell(m, b) for b in ("plain", "nops") for m in ("m1", "m2", "m3")]
    recorder = Recorder({"firmware generation": 0.2})
    results = Scheduler(cells, recorder, _resources(), workers=3,
                        stop=threading.Event()).run()
    assert [r.status for r in results] == ["complete"] * 6
    for backend in ("plain", "nops"):
        group = [c.cell.id for c in cells if c.cell.backend == backend]
        first = min(group, key=lambda c: recorder.started(c, "config"))
        made = recorder.started(first, "build")
        assert all(recorder.started(c, "config") >= made for c in group if c != first)


def test_a_board_runs_one_cell_at_a_time_and_emulators_are_bounded() -> None:
    cells = [_cell(f"m{i}", "plain", board) for i in range(4)
             for board in ("apollo510_evb", "qemu-m55")]
    recorder = Recorder({"run, capture and results": 0.1})
    Scheduler(cells, recorder, _resources(emulators=2), workers=8,
              stop=threading.Event()).run()
    assert recorder.most == {"apollo510_evb": 1, "qemu-m55": 2}


def test_runs_spread_over_a_boards_places_one_cell_each() -> None:
    cells = [_cell(f"m{i}", "plain", board) for i in range(6)
             for board in ("qemu-m55", "qemu-m4")]
    recorder = Recorder({"run, capture and results": 0.05})
    heard: list[str] = []

    def on_progress(progress: Progress) -> None:
        heard.extend(w.activity for w in progress.workers)

    results = Scheduler(cells, recorder, _resources(places={"qemu-m55": ["lab-a", "lab-b"]}),
                        workers=4, stop=threading.Event(), on_progress=on_progress).run()
    placed = [r.place for r in results if r.planned.cell.board == "qemu-m55"]
    # Both places serve (how evenly depends on which is free when a run starts: a loaded
    # machine may finish one place's runs first), never two runs at once on one place.
    assert len(placed) == 6 and set(placed) == {"lab-a", "lab-b"}
    assert [r.place for r in results if r.planned.cell.board == "qemu-m4"] == [None] * 6
    assert recorder.most["lab-a"] == 1 and recorder.most["lab-b"] == 1
    assert "run, capture and results on place lab-a" in heard


def test_a_cell_waits_for_whichever_place_frees_first() -> None:
    cells = [_cell(f"m{i}", "plain") for i in range(3)]
    recorder = Recorder({"run, capture and results": 0.3})
    heard: list[str] = []

    def on_progress(progress: Progress) -> None:
        heard.extend(w.activity for w in progress.workers)

    results = Scheduler(cells, recorder, _resources(places={"qemu-m55": ["lab-a", "lab-b"]}),
                        workers=3, stop=threading.Event(), on_progress=on_progress).run()
    assert {r.place for r in results} == {"lab-a", "lab-b"}
    assert recorder.most["lab-a"] == recorder.most["lab-b"] == 1
    assert any(a.startswith("waiting for one of place lab-") for a in heard)


def test_a_stop_starts_no_new_cell_and_abandons_waits() -> None:
    cells = [_cell(f"m{i}", "plain") for i in range(4)]
    stop = threading.Event()
    recorder = Recorder({"build": 0.5})
    heard: list[Progress] = []

    def on_progress(progress: Progress) -> None:
        heard.append(progress)
        if any("waiting for a build slot" in w.activity for w in progress.workers):
            stop.set()

    scheduler = Scheduler(cells, recorder, _resources(builds=1), workers=2, stop=stop,
                          on_progress=on_progress)
    results = scheduler.run()
    assert sorted(r.status for r in results) == ["complete", "interrupted"]
    assert len(scheduler.not_started()) == 2
    assert any(p.waiting >= 1 and p.stopping for p in heard)
    assert heard[-1].finished == {"complete": 1, "interrupted": 1}


def test_cells_of_one_model_do_not_build_side_by_side_while_another_can() -> None:
    """Planned model by model, as a matrix file's axes make them: the later cell of a model
    builds after the earlier one's build, and finds its units in the compiler cache."""
    cells = [_cell(m, b) for m in ("m1", "m2", "m3") for b in ("plain", "nops")]
    recorder = Recorder({"build": 0.15})
    Scheduler(cells, recorder, _resources(builds=2), workers=2, stop=threading.Event()).run()
    builds = {c.cell.id: (recorder.started(c.cell.id, "build"),
                          recorder.started(c.cell.id, "kernel verification")) for c in cells}
    for model in ("m1", "m2"):  # m3's two cells are the last: nothing else could go instead
        (start_a, end_a), (start_b, end_b) = (builds[c.cell.id] for c in cells
                                              if c.cell.model.name == model)
        assert end_a <= start_b or end_b <= start_a, model
    # both build slots were used: the other model's cell went beside it instead
    assert min(builds[c.cell.id][0] for c in cells[2:4]) < builds[cells[0].cell.id][1]


def test_cells_done_before_are_not_run_again() -> None:
    cells = [_cell(f"m{i}", "plain") for i in range(3)]
    done = [CellResult(cells[1], "complete", resumed=True)]
    recorder = Recorder()
    results = Scheduler(cells, recorder, _resources(), workers=2, stop=threading.Event(),
                        done=done).run()
    assert [r.resumed for r in results] == [False, True, False]
    assert {c for _, c, _ in recorder.events} == {cells[0].cell.id, cells[2].cell.id}


def test_a_cell_waiting_on_another_process_lends_its_build_slot(tmp_path: Path) -> None:
    lock_file = tmp_path / ".demo.lock"
    other_process = FileLock(str(lock_file), thread_local=False)
    other_process.acquire()  # another hpx process is building the library
    cells = [_cell("m0", "plain"), _cell("m1", "nops")]
    order: list[str] = []
    heard: list[str] = []

    def run_one(planned: PlannedCell, on_stage: Callable[[str], None],
                stopping: Callable[[], bool], place: Callable[[], str | None]) -> CellResult:
        for stage in STAGE_NAMES:
            on_stage(stage)
            if stage == "firmware generation" and planned.cell.model.name == "m0":
                with hold(lock_file, "engine library demo"):
                    pass
        order.append(planned.cell.id)
        return CellResult(planned, "complete")

    def on_progress(progress: Progress) -> None:
        heard.extend(w.activity for w in progress.workers)
        if progress.just_finished is not None and other_process.is_locked:
            other_process.release()  # the other process is done once m1 is

    results = Scheduler(cells, run_one, _resources(builds=1), workers=2,
                        stop=threading.Event(), on_progress=on_progress).run()
    assert [r.status for r in results] == ["complete", "complete"]
    assert order == [cells[1].cell.id, cells[0].cell.id]
    assert "waiting for engine library demo" in heard


def test_the_least_used_free_place_is_offered_first() -> None:
    resources = _resources(places={"qemu-m55": ["lab-a", "lab-b"]})
    first = resources.runners_for("qemu-m55")[0]
    assert isinstance(first, PlaceSlot) and first.try_take()
    first.give_back()
    again = resources.runners_for("qemu-m55")
    assert [s.place for s in again if isinstance(s, PlaceSlot)] == ["lab-b", "lab-a"]
