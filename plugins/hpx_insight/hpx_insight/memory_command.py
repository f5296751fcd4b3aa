"""``hpx calibrate --memory``: run the memory probe on a board and write what each region's
misses cost (:mod:`hpx_insight.memory_calibration`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hpx_core.sdk.calibration import run_memory_probe
from hpx_core.sdk.firmware import Board
from hpx_core.sdk.passes import UsageError, get_board, write_atomic
from hpx_insight.cycles.memory import memory_system
from hpx_insight.memory_calibration import FILE_NAME, calibration_text, region_costs, walk_rows

RESULTS = "results"  # the probe's bundle, beside the calibration


def memory_board(name: str | None, clock: str) -> Board:
    """The board to measure, in its ``clock`` mode; one error for no board, an emulated one,
    or one whose caches the model does not simulate (its misses are never priced)."""
    if name is None:
        raise UsageError("hpx calibrate --memory needs the board to measure",
                         "give --board, e.g. --board apollo510_evb")
    board = get_board(name)
    if board.emulated:
        raise UsageError(f"{name} is emulated: it has no caches or wait states to measure",
                         "measure an Apollo board (apollo510_evb, apollo330mP_evb) through "
                         "its debug probe")
    if memory_system(board).dcache is None:
        raise UsageError(f"the cycle model simulates no caches for {name}, so no estimate "
                         "could use its measured miss costs",
                         "measure an Apollo5 board (apollo510_evb, apollo330mP_evb)")
    return board.at_clock(clock)


def calibrate_memory(name: str | None, clock: str, probe: str | None, packs: Sequence[Path],
                     work_dir: Path, output_dir: Path) -> Path:
    """Measure, print the walks and the costs, write the calibration; its path."""
    from rich.console import Console
    from rich.table import Table

    board = memory_board(name, clock)
    run = run_memory_probe(board, work_dir, output_dir / RESULTS, probe=probe, packs=packs)
    result = region_costs(run)
    console = Console()
    walks = Table("walk", "cycles", "cycles per line", "refills",
                  title=f"hpx calibrate --memory: {board.name} at {board.clock} "
                        f"({board.clock_hz / 1e6:g} MHz)")
    for row in walk_rows(result):
        walks.add_row(*row)
    console.print(walks)
    costs = Table("region", "read line fill", "write miss",
                  title=f"cycles per line beyond {result.baseline}")
    for region in result.regions:
        costs.add_row(region.region, f"{region.read_fill:.2f}",
                      "-" if region.write_miss is None else f"{region.write_miss:.2f}")
    console.print(costs)
    for note in result.notes:
        console.print(f"note: {note}", markup=False, soft_wrap=True)
    target = output_dir / FILE_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, calibration_text(result))
    console.print(f"written: {target} (use it with --estimate-for {board.name} "
                  f"--memory-calibration {target})", markup=False, soft_wrap=True)
    return target
