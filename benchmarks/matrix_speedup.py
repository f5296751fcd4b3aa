"""The 8-cell emulated matrix in parallel against the same cells one after another.

    python benchmarks/matrix_speedup.py [--repeats 2] [--workers N] [--cold]

What both sides share is made ready before either side runs, and the run says so: the pinned
sources and every engine library unit the cells link (``hpx prepare --matrix``, in the usual
cache). Neither side can then build a library the other finds ready, whatever state the cache
was in before. What they must not share is given to each apart: each repeat gives each side
empty work folders and an empty compiler cache of its own (cold app builds: every app unit is
compiled, none is a compiler-cache hit another run left), then runs both again in those
folders with those caches (warm app builds). The sides alternate: odd repeats run the
cells one after another first, even ones the matrix first. Each figure is the median over the
repeats with its range, and the speed-up is the ratio of the medians. Each side's CPU (this
process and its compilers, QEMU and tools) is printed beside its time, with the wall time that
CPU allows on this machine's cores: the best a matrix could do, so a ratio below the goal says
whether the schedule or the work is what bounds it. The one-after-another
side runs each cell through ``pipeline.profile``, as ``hpx profile`` does, then writes its
report page, as ``hpx report`` does and the matrix does for every cell: both sides make the same
files. Its pages' time is printed apart, with the ratio without them (the matrix's pages
included) beside it. Every cell's counts must be the same on both sides.

With ``--cold`` the matrix runs once more on a private cache whose engine libraries are empty
(its ``sources`` folder is the usual cache's, so nothing is fetched again), and the table shows
which cell built which library: each exactly once.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from hpx_core import api
from hpx_core.matrix import MatrixPlan, MatrixResult, PlannedCell
from hpx_core.matrix.cell import PAGE_FILE, write_bundle_page
from hpx_core.pipeline import profile
from hpx_core.sources import cache_root

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "examples/matrix/emulated.yaml"
HPX = str(Path(sys.executable).with_name("hpx"))


def profile_cell(planned: PlannedCell, folder: Path) -> tuple[int | None, float]:
    """One cell through the pipeline in ``folder``, then its report page, drawn as the matrix
    draws its pages; its count and the page's seconds."""
    cell = folder / "cells" / planned.cell.id
    overrides = dict(planned.overrides)
    overrides["output.dir"] = (str(cell), "benchmark")
    overrides["build.work_dir"] = (str(folder / "hpx-work"), "benchmark")
    outcome = profile(None, None, overrides)
    assert outcome.bundle is not None, planned.cell.id
    drawing = time.monotonic()
    write_bundle_page(outcome.bundle, cell / PAGE_FILE)
    return (outcome.measurement.whole_median if outcome.measurement else None,
            time.monotonic() - drawing)


def one_after_another(plan: MatrixPlan, folder: Path
                      ) -> tuple[float, float, dict[str, int | None]]:
    """Every cell of ``plan`` in turn, in ``folder``; the time, the pages' share of it, and the
    counts."""
    counts: dict[str, int | None] = {}
    pages = 0.0
    start = time.monotonic()
    for planned in plan.cells:
        counts[planned.cell.id], drawn = profile_cell(planned, folder)
        pages += drawn
    return time.monotonic() - start, pages, counts


def warm_up(folder: Path) -> None:
    """The first cell profiled and its page drawn, untimed, in folders and a compiler cache of
    its own: this process's first run and first page import and load what every later one
    finds ready (about 0.2 s for a page alone), and would charge it to whichever side ran
    first."""
    os.environ["CCACHE_DIR"] = str(folder / "ccache")
    profile_cell(api.plan_matrix(SPEC, folder / "matrix").cells[0], folder)


def in_parallel(folder: Path, workers: int | None, *, fresh: bool = False
                ) -> tuple[float, MatrixResult]:
    start = time.monotonic()
    result = api.matrix(SPEC, folder, fresh=fresh, workers=workers)
    return time.monotonic() - start, result


def check_counts(result: MatrixResult, counts: dict[str, int | None]) -> None:
    for cell in result.cells:
        whole = cell.numbers.whole if cell.numbers else None
        assert cell.status == "complete" and whole == counts[cell.id], cell.id


def cpu_seconds() -> float:
    """User + system CPU of this process and of its finished child processes so far."""
    own, children = (resource.getrusage(who) for who in (resource.RUSAGE_SELF,
                                                         resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def spread(values: list[float]) -> str:
    return (f"{statistics.median(values):.1f} s ({min(values):.1f}-{max(values):.1f}, "
            f"n={len(values)})")


def cold_libraries(work: Path, workers: int | None) -> None:
    """The matrix on a private cache with no engine library: who built what."""
    private = work / "cache"
    private.mkdir()
    (private / "sources").symlink_to(cache_root() / "sources", target_is_directory=True)
    os.environ["HPX_CACHE_DIR"] = str(private)
    seconds, result = in_parallel(work / "cold" / "matrix", workers)
    users: dict[str, list[str]] = defaultdict(list)
    builders: dict[str, list[str]] = defaultdict(list)
    for cell in result.cells:
        for library in cell.libraries:
            name = f"{library['name']}-{str(library['key'])[:12]}"
            users[name].append(cell.id)
            if library["built"]:
                builders[name].append(f"{cell.id} ({float(library['seconds']):.0f} s)")
    print(f"\ncold engine libraries: the matrix took {seconds:.1f} s")
    print("| library | cells using it | built by |")
    print("|---|---|---|")
    for name, cells in users.items():
        print(f"| {name} | {len(cells)} | {', '.join(builders[name]) or '-'} |")
        assert len(builders[name]) == 1, f"{name} was built {len(builders[name])} times"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--cold", action="store_true", help="also run with no engine library")
    parser.add_argument("--workers", type=int, default=None, help="cells in flight")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpx-matrix-speedup-"))
    started = time.monotonic()
    subprocess.run([HPX, "prepare", "--matrix", str(SPEC)], check=True, capture_output=True)
    warm_up(work / "warm-up")
    print(f"shared state warmed before either side: sources and engine library units of every "
          f"cell (hpx prepare --matrix), and this process's first profile and page (one cell, "
          f"in folders of its own), {time.monotonic() - started:.1f} s; app builds start cold "
          f"in each side's own work folders and empty compiler cache")
    times: dict[str, list[float]] = defaultdict(list)
    cpu: dict[str, list[float]] = defaultdict(list)
    drawn: dict[str, list[float]] = defaultdict(list)  # the pages' share, one after another
    for repeat in range(args.repeats):
        folder = work / f"repeat{repeat}"
        plan = api.plan_matrix(SPEC, folder / "parallel" / "matrix")
        counts: dict[str, int | None] = {}
        sides = ("one after another", "matrix") if repeat % 2 == 0 else (
            "matrix", "one after another")
        for state in ("cold", "warm"):
            for side in sides:
                ccache = folder / f"ccache-{side.replace(' ', '-')}"
                os.environ["CCACHE_DIR"] = str(ccache)  # empty at "cold", the side's own after
                used = cpu_seconds()
                if side == "matrix":
                    seconds, result = in_parallel(plan.folder, args.workers,
                                                  fresh=state == "warm")
                    if counts:
                        check_counts(result, counts)
                else:
                    seconds, pages, found = one_after_another(plan, folder / "sequential")
                    counts.update(found)
                    drawn[state].append(pages)
                times[f"{side}, {state}"].append(seconds)
                cpu[f"{side}, {state}"].append(cpu_seconds() - used)
        print(f"repeat {repeat + 1}: " + ", ".join(f"{k} {v[-1]:.1f} s"
                                                   for k, v in times.items()))
    print(f"\n{len(plan.cells)} cells, {os.cpu_count()} cores, {args.repeats} repeats "
          f"(sides alternating); work in {work}")
    cores = os.cpu_count() or 1
    for state in ("cold", "warm"):
        alone, together = times[f"one after another, {state}"], times[f"matrix, {state}"]
        pages = statistics.median(drawn[state])
        print(f"app builds {state}: one after another {spread(alone)}, matrix "
              f"{spread(together)}: {statistics.median(alone) / statistics.median(together):.2f}x")
        print(f"  of which the cells' report pages one after another: {pages:.1f} s; without "
              f"them: {(statistics.median(alone) - pages) / statistics.median(together):.2f}x")
        alone_cpu, together_cpu = (statistics.median(cpu[f"{side}, {state}"])
                                   for side in ("one after another", "matrix"))
        best = together_cpu / cores
        print(f"  CPU: one after another {alone_cpu:.1f} s, matrix {together_cpu:.1f} s (its "
              f"report pages included); that CPU on {cores} cores takes at least {best:.1f} s: "
              f"at most {statistics.median(alone) / best:.2f}x")
    if args.cold:
        cold_libraries(work, args.workers)


if __name__ == "__main__":
    main()
