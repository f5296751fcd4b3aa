"""`hpx selftest` on a real board: the calibration loops measured in cycles, through the probe.

On silicon the counts are cycles, so the loops' exact instruction counts bound them rather
than equal them. The checks: every loop measured in every iteration; cycles within what the
core can do (at most two instructions a cycle on the Cortex-M55, one on the M4; at most 64
cycles an instruction, which only a counter on the wrong clock or a broken read reaches);
the subs/bne loops linear in their length (the same cycles per iteration for 10, 1,000 and
12,000,000 iterations, within 5%); and the counts repeatable across iterations and runs (1%).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from hpx_core.boards import Board, get_board
from hpx_core.firmware import (
    BuildResult,
    HarnessSettings,
    build_project,
    get_toolchain,
    render_project,
)
from hpx_core.firmware.placement import check_elf
from hpx_core.results import LayerResult, Measurement
from hpx_core.run import RunRecord
from hpx_core.runners import runner_for
from hpx_core.selftest.layers import CalibrationLayer, calibration_layers, selftest_contribution
from hpx_core.selftest.run import ENGINE, record_workload

MAX_CYCLES_PER_INSTRUCTION = 64
LINEARITY = 0.05
REPEATABILITY = 0.01


@attrs.frozen
class SiliconCheck:
    name: str
    passed: bool
    detail: str


def _checks(value: Iterable[SiliconCheck]) -> tuple[SiliconCheck, ...]:
    return tuple(value)


def _records(value: Iterable[RunRecord]) -> tuple[RunRecord, ...]:
    return tuple(value)


@attrs.frozen
class SiliconSelftestReport:
    board: str
    checks: tuple[SiliconCheck, ...] = attrs.field(converter=_checks)
    build: BuildResult
    runs: tuple[RunRecord, ...] = attrs.field(converter=_records)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)


def issue_width(board: Board) -> int:
    return 2 if board.core == "cortex-m55" else 1


def _bounds(board: Board, layer: CalibrationLayer, got: LayerResult) -> SiliconCheck:
    low = layer.expected / issue_width(board)
    high = layer.expected * MAX_CYCLES_PER_INSTRUCTION
    ok = all(low <= c <= high for c in got.counts)
    detail = f"{got.median:,} cycles for {layer.expected:,} instructions"
    return SiliconCheck(f"{layer.name}: cycles within the core's bounds", ok, detail)


def _linearity(layers: Sequence[CalibrationLayer], got: dict[str, LayerResult]) -> SiliconCheck:
    loops = sorted((x for x in layers if x.kind == "subs_bne"), key=lambda x: x.n)
    slopes = [
        (got[b.name].median - got[a.name].median) / (b.n - a.n)
        for a, b in itertools.pairwise(loops)
    ]
    ok = len(slopes) >= 2 and all(s > 0 for s in slopes)
    ok = ok and max(slopes) - min(slopes) <= LINEARITY * max(slopes)
    detail = ", ".join(f"{s:.3f}" for s in slopes) + " cycles per loop iteration"
    return SiliconCheck("subs/bne loops linear in their length", ok, detail)


def _repeatable(name: str, counts: Sequence[int]) -> SiliconCheck:
    ok = bool(counts) and max(counts) - min(counts) <= max(2, REPEATABILITY * max(counts))
    return SiliconCheck(f"{name}: repeatable", ok, f"{min(counts):,}..{max(counts):,}")


def silicon_checks(board: Board, runs: Sequence[Measurement]) -> list[SiliconCheck]:
    """The verdicts for ``runs`` of the selftest firmware on ``board`` (see the module doc)."""
    layers = calibration_layers(board)
    first = {layer.name: layer for layer in runs[0].layers}
    missing = [x.name for x in layers if x.name not in first]
    checks = [SiliconCheck("every loop measured", not missing, ", ".join(missing) or "all")]
    if missing:
        return checks
    checks += [_bounds(board, x, first[x.name]) for x in layers]
    checks.append(_linearity(layers, first))
    for x in layers:
        per_run = [m.median for run in runs for m in run.layers if m.name == x.name]
        checks.append(_repeatable(x.name, [*first[x.name].counts, *per_run]))
    return checks


def run_silicon_selftest(
    board_name: str,
    work_dir: Path,
    results_dir: Path,
    *,
    probe: str | None = None,
    packs: Sequence[Path] = (),
    runs: int = 2,
    timeout: float = 120.0,
) -> SiliconSelftestReport:
    """Build the selftest for an Apollo board, run it ``runs`` times through the probe."""
    board = get_board(board_name)
    chain = get_toolchain("arm-none-eabi-gcc")
    settings = HarnessSettings(ENGINE, iterations=3, warmup=1)
    project = render_project(work_dir / board.name, board, selftest_contribution(board), settings)
    built = build_project(project, chain)
    check_elf(board, built.elf)
    runner = runner_for(board, timeout=timeout, probe=probe, packs=packs)
    records = [
        record_workload(runner, built, chain, settings, results_dir) for _ in range(runs)
    ]
    checks = silicon_checks(board, [r.measurement for r in records])
    return SiliconSelftestReport(board.name, checks, built, records)
