"""`hpx matrix MATRIX.yaml`: every cell of a matrix file, in parallel, with live progress.

Ctrl-C stops the matrix: no new cell starts, running stages finish, the matrix folder is
written with what was done; `--resume` continues it later.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.live import Live
from rich.table import Table

from hpx_core.cli.app import app, console

if TYPE_CHECKING:  # imported when the command runs: `hpx --help` stays fast
    from hpx_core.matrix import CellResult, MatrixPlan, MatrixResult, Progress
    from hpx_core.matrix.cells import Cell


@app.command()
def matrix(
    spec: Annotated[Path, typer.Argument(help="Matrix file (YAML, 'hpx_matrix: 1').")],
    output_dir: Annotated[
        Path | None, typer.Option("--output-dir", help="Matrix folder (hpx-matrix/<name>).")
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Skip cells already done with the same inputs.")
    ] = False,
    fresh: Annotated[
        bool, typer.Option("--fresh", help="Start over in a folder holding an earlier matrix.")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan only.")] = False,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", min=1, help="Cells in flight at once.")
    ] = None,
    place: Annotated[str | None, typer.Option(
        "--place", help="Spread runs over labgrid places: any, NAME or KEY=VALUE,... "
        "(LG_COORDINATOR names the coordinator).")] = None,
) -> None:
    """Profile every cell of a matrix: models x engines x backends x boards x toolchains."""
    from hpx_core import api
    from hpx_core.matrix import MatrixFailedError, MatrixInterruptedError

    if dry_run:
        _print_plan(api.plan_matrix(spec, output_dir, place=place))
        return
    stop = threading.Event()
    display = _Display()
    with _stopping_on_ctrl_c(stop), display.live():
        result = api.matrix(spec, output_dir, resume=resume, fresh=fresh, workers=workers,
                            stop=stop, on_progress=display.update, place=place)
    _print_result(result)
    failed = result.with_status("failed")
    if result.interrupted:
        raise MatrixInterruptedError(
            f"stopped: {len(result.with_status('complete', 'built'))} of {len(result.cells)} "
            "cells done", f"continue with: hpx matrix {spec} --output-dir {result.folder} --resume")
    if failed:
        raise MatrixFailedError(f"{len(failed)} of {len(result.cells)} cells failed",
                                f"causes in {result.folder / 'matrix.csv'} and the table above")


@contextmanager
def _stopping_on_ctrl_c(stop: threading.Event) -> Iterator[None]:
    def handler(_signum: int, _frame: Any) -> None:
        if not stop.is_set():
            console.print("[yellow]stopping: no new cells; running stages finish "
                          "(Ctrl-C again does not hurry them)[/]")
        stop.set()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _Display:
    """Live progress on a terminal; one line per finished cell (and per wait) otherwise."""

    def __init__(self) -> None:
        self._tty = sys.stdout.isatty()
        self._live: Live | None = None
        self._waits: dict[int, str] = {}

    @contextmanager
    def live(self) -> Iterator[None]:
        if not self._tty:
            yield
            return
        with Live(Table(), console=console, refresh_per_second=4, transient=True) as live:
            self._live = live
            yield
        self._live = None

    def update(self, progress: Progress) -> None:
        done = progress.just_finished
        if done is not None:
            console.print(_finished_line(done), markup=False)
        if self._live is not None:
            self._live.update(_progress_table(progress))
            return
        for worker in progress.workers:  # without a terminal: say each new wait once
            if worker.activity.startswith("waiting") and self._waits.get(
                    worker.worker) != worker.activity:
                console.print(f"  {worker.cell}: {worker.activity}", markup=False)
            self._waits[worker.worker] = worker.activity


def _counts(progress: Progress) -> str:
    finished = ", ".join(f"{n} {status}" for status, n in sorted(progress.finished.items()))
    return (f"{progress.total} cells: {finished or 'none finished'}; "
            f"{progress.waiting} waiting ({progress.queued} not started)"
            + ("; stopping" if progress.stopping else ""))


def _progress_table(progress: Progress) -> Table:
    table = Table("worker", title=_counts(progress), title_justify="left")
    table.add_column("cell", overflow="fold")
    table.add_column("stage", overflow="fold")
    for worker in progress.workers:
        table.add_row(str(worker.worker + 1), worker.cell or "-", worker.activity)
    return table


def _finished_line(result: CellResult) -> str:
    n = result.numbers
    if result.status == "complete" and n is not None and n.whole is not None:
        what = f"{n.whole:,} {n.units}"
    elif result.status == "built" and n is not None:
        what = f"flash {n.flash} B, RAM {n.ram} B; {result.note}"
    else:
        what = result.cause or ""
    where = f" on place {result.place}" if result.place else ""
    return f"{result.status:>11}  {result.id}{where}  {what}  ({result.seconds:.1f} s)"


def _print_plan(plan: MatrixPlan) -> None:
    from hpx_core.matrix.places import places_by_board
    from hpx_core.matrix.resources import machine_resources
    from hpx_core.matrix.run import default_workers

    table = Table("cell", "board use", title=f"matrix {plan.name}: {len(plan.cells)} cells")
    for planned in plan.cells:
        table.add_row(planned.cell.id, "build only" if planned.cell.build_only else "run")
    console.print(table)
    for pruned in plan.pruned:
        console.print(f"pruned {pruned.cell.id}: {pruned.reason}", markup=False)
    if plan.excluded:
        console.print(f"excluded by rules: {plan.excluded} cells")
    groups = plan.library_groups
    console.print(f"engine libraries: {len(groups)} (each built at most once, by the first cell "
                  "of its group; found in the cache when an earlier run built it)")
    members: dict[tuple[str | None, ...], list[Cell]] = {}
    for planned in plan.cells:
        members.setdefault(planned.library_group, []).append(planned.cell)
    for group, cells in groups.items():
        engine, backend, _options, _flags, toolchain = group
        boards = sorted({c.board for c in members[group]})
        variants = sorted({c.variant for c in members[group] if c.variant})
        shown = "/".join(g for g in (engine, backend) if g)
        if variants:
            shown += f" ({', '.join(variants[:4])}{', ...' if len(variants) > 4 else ''})"
        console.print(f"  {shown} on {', '.join(boards)} ({toolchain}): {cells} cells",
                      markup=False)
    places = places_by_board(plan)
    resources = machine_resources(places=places)
    work = ", ".join(f"{n} {what}" for what, n in plan.work().items())
    console.print(f"work: {work}; {resources.builds.size} build slots, "
                  f"{resources.emulators.size} emulators, {default_workers()} cells at once")
    for board, names in places.items():
        console.print(f"runs on {board} spread over places {', '.join(names)}", markup=False)
    console.print(f"folder: {plan.folder}", markup=False)


def _print_result(result: MatrixResult) -> None:
    table = Table("cell", "status", "whole", "flash B", "RAM B", "outputs", "cause or note",
                  title=f"matrix {result.plan.name}")
    for cell in result.cells:
        n = cell.numbers
        table.add_row(
            cell.id + (f" (place {cell.place})" if cell.place else ""),
            cell.status + (" (resumed)" if cell.resumed else ""),
            f"{n.whole:,}" if n and n.whole is not None else "-",
            f"{n.flash:,}" if n and n.flash is not None else "-",
            f"{n.ram:,}" if n and n.ram is not None else "-",
            (n.output_check if n else None) or "-", cell.cause or cell.note or "")
    console.print(table)
    for pruned in result.plan.pruned:
        console.print(f"pruned {pruned.cell.id}: {pruned.reason}", markup=False)
    for path in result.written:
        console.print(f"wrote {path}", markup=False)
