"""The 8-cell emulated matrix in parallel against the same cells one after another.

    python benchmarks/matrix_speedup.py [--cold] [--workers N]

Both sides start alike: engine libraries from the usual cache (warm), app builds in empty work
folders of their own (cold); then both again with their work folders warm. The one-after-another
side runs each cell through ``pipeline.profile``, as ``hpx profile`` does. Every cell's counts
must be the same on both sides. With ``--cold`` the matrix runs once more on a private cache
whose engine libraries are empty (its ``sources`` folder is the usual cache's, so nothing is
fetched again), and the table shows which cell built which library: each exactly once.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from hpx_core import api
from hpx_core.matrix import MatrixPlan, MatrixResult
from hpx_core.pipeline import profile
from hpx_core.sources import cache_root

REPO = Path(__file__).resolve().parents[1]
SPEC = REPO / "examples/matrix/emulated.yaml"


def one_after_another(plan: MatrixPlan, folder: Path) -> tuple[float, dict[str, int | None]]:
    """Every cell of ``plan`` through the pipeline in turn, in ``folder``; time and counts."""
    counts: dict[str, int | None] = {}
    start = time.monotonic()
    for planned in plan.cells:
        overrides = dict(planned.overrides)
        overrides["output.dir"] = (str(folder / "cells" / planned.cell.id), "benchmark")
        overrides["build.work_dir"] = (str(folder / "hpx-work"), "benchmark")
        outcome = profile(None, None, overrides)
        counts[planned.cell.id] = outcome.measurement.whole_median if outcome.measurement else None
    return time.monotonic() - start, counts


def in_parallel(folder: Path, workers: int | None, *, fresh: bool = False
                ) -> tuple[float, MatrixResult]:
    start = time.monotonic()
    result = api.matrix(SPEC, folder, fresh=fresh, workers=workers)
    return time.monotonic() - start, result


def compare_counts(result: MatrixResult, counts: dict[str, int | None]) -> None:
    print("| cell | matrix | one after another |")
    print("|---|---|---|")
    for cell in result.cells:
        whole = cell.numbers.whole if cell.numbers else None
        print(f"| {cell.id} | {whole:,} | {counts[cell.id]:,} |")
        assert cell.status == "complete" and whole == counts[cell.id], cell.id


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
    parser.add_argument("--cold", action="store_true", help="also run with no engine library")
    parser.add_argument("--workers", type=int, default=None, help="cells in flight")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpx-matrix-speedup-"))
    plan = api.plan_matrix(SPEC, work / "parallel" / "matrix")
    print(f"{len(plan.cells)} cells, {os.cpu_count()} cores; work in {work}")
    sequential_cold, counts = one_after_another(plan, work / "sequential")
    parallel_cold, result = in_parallel(plan.folder, args.workers)
    compare_counts(result, counts)
    sequential_warm, _ = one_after_another(plan, work / "sequential")
    parallel_warm, _ = in_parallel(plan.folder, args.workers, fresh=True)
    print(f"\napp builds cold: one after another {sequential_cold:.1f} s, matrix "
          f"{parallel_cold:.1f} s: {sequential_cold / parallel_cold:.2f}x")
    print(f"app builds warm: one after another {sequential_warm:.1f} s, matrix "
          f"{parallel_warm:.1f} s: {sequential_warm / parallel_warm:.2f}x")
    if args.cold:
        cold_libraries(work, args.workers)


if __name__ == "__main__":
    main()
