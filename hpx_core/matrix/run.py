"""One matrix run: check the folder, resume what is done, schedule the rest, record, report.

The matrix folder holds ``cells/<cell>/`` (each cell's bundle and ``cell.json``), then
``matrix.json``, ``matrix.csv``, ``junit.xml`` and ``report.html``, written when the cells are
done, and again after a stop, so an interrupted matrix still says what it did.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import attrs
from filelock import FileLock, Timeout

from hpx_core.errors import HpxError, UsageError
from hpx_core.matrix.cell import PAGE_FILE, CellResult, finished_before, run_cell, write_cell_page
from hpx_core.matrix.outputs import CSV_FILE, JUNIT_FILE, write_tables
from hpx_core.matrix.places import places_by_board
from hpx_core.matrix.plan import CELLS, MatrixPlan
from hpx_core.matrix.record import MATRIX_FILE, load_matrix, write_matrix_json
from hpx_core.matrix.resources import Resources, machine_resources
from hpx_core.matrix.scheduler import Progress, Scheduler
from hpx_core.plugins import Registry

REPORT_FILE = PAGE_FILE
LOCK_FILE = ".matrix.lock"
WRITTEN = (CELLS, MATRIX_FILE, CSV_FILE, JUNIT_FILE, REPORT_FILE)


class MatrixFailedError(HpxError):
    """Some cells failed (the others ran; the matrix folder says which and why)."""

    exit_code = 1


class MatrixInterruptedError(HpxError):
    """The matrix was stopped before every cell ran."""

    exit_code = 130


@attrs.frozen
class MatrixResult:
    """The plan and what became of each of its cells, in plan order."""

    plan: MatrixPlan
    cells: tuple[CellResult, ...]
    interrupted: bool = False
    written: tuple[Path, ...] = ()

    @property
    def folder(self) -> Path:
        return self.plan.folder

    def with_status(self, *statuses: str) -> tuple[CellResult, ...]:
        return tuple(c for c in self.cells if c.status in statuses)

    @property
    def passed(self) -> bool:
        """Every cell complete or built (a pruned cell is not a failure)."""
        return len(self.with_status("complete", "built")) == len(self.cells)


def run_matrix(plan: MatrixPlan, registry: Registry, *, resume: bool = False,
               fresh: bool = False, workers: int | None = None,
               stop: threading.Event | None = None,
               on_progress: Callable[[Progress], None] | None = None,
               resources: Resources | None = None) -> MatrixResult:
    """Run every cell of ``plan`` not already done (with ``resume``); record and report.
    The runs of boards with farm places (the plan's ``place``) spread over those places."""
    resources = resources or machine_resources(places=places_by_board(plan))
    folder = plan.folder
    folder.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(folder / LOCK_FILE))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise UsageError(f"another hpx matrix is running in {folder}",
                         "wait for it, or choose another --output-dir") from None
    try:
        _prepare_folder(folder, resume=resume, fresh=fresh)
        done = [r for p in plan.cells if resume and (r := finished_before(p)) is not None]
        stop = stop or threading.Event()
        scheduler = Scheduler(
            plan.cells,
            lambda p, on_stage, stopping, place: run_cell(p, registry, on_stage, stopping, place),
            resources, workers=workers or default_workers(), stop=stop,
            on_progress=on_progress, done=done)
        ran = {r.id: r for r in scheduler.run()}
        unstarted = "the matrix stopped before this cell started"
        results = tuple(ran.get(p.cell.id) or CellResult(p, "not run", cause=unstarted)
                        for p in plan.cells)
        interrupted = stop.is_set()
        return MatrixResult(plan, results, interrupted, tuple(_record(plan, results,
                                                                      interrupted)))
    finally:
        lock.release()


def default_workers() -> int:
    """Cells in flight: one per core, and one more that prepares while the others compute."""
    return (os.cpu_count() or 1) + 1


def _prepare_folder(folder: Path, *, resume: bool, fresh: bool) -> None:
    held = [name for name in WRITTEN if (folder / name).exists()]
    if not held or resume:
        return
    if not fresh:
        raise UsageError(f"{folder} already holds a matrix ({', '.join(held)})",
                         "pass --resume to continue it, --fresh to start over, or choose "
                         "another --output-dir")
    for name in held:
        path = folder / name
        shutil.rmtree(path) if path.is_dir() else path.unlink()


def _record(plan: MatrixPlan, results: tuple[CellResult, ...], interrupted: bool) -> list[Path]:
    from hpx_core.matrix.heatmap import matrix_report  # reports only when the cells are done
    from hpx_core.report import write_report

    for result in results:
        if result.resumed and not (result.planned.folder / PAGE_FILE).is_file():
            write_cell_page(result)  # each cell run here wrote its page as it ended
    written = [write_matrix_json(plan, results, interrupted=interrupted)]
    view = load_matrix(plan.folder)
    written += write_tables(view)
    written.append(write_report(plan.folder / REPORT_FILE, matrix_report(view)))
    return written
