"""Build the memory probe for a silicon board, run it through the probe, and read back what
each walk cost: the measurement ``hpx calibrate --memory`` prices the regions from."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from hpx_core.boards import Board
from hpx_core.errors import RunError, UsageError
from hpx_core.firmware import (
    HarnessSettings,
    build_project,
    get_toolchain,
    render_project,
)
from hpx_core.firmware.placement import check_elf
from hpx_core.firmware.support import SupportPlan
from hpx_core.probe.event_passes import EventPlan, plan_events
from hpx_core.results import LayerResult
from hpx_core.run import RunRecord
from hpx_core.run.runner import Runner
from hpx_core.runners import runner_for
from hpx_core.selftest.memory_probe import (
    ENGINE,
    EVENTS,
    Walk,
    memory_probe_contribution,
    probe_walks,
)
from hpx_core.selftest.run import record_workload


@attrs.frozen
class WalkResult:
    """One walk as the board measured it: cycles (median over the iterations) and events."""

    walk: Walk
    cycles: int
    events: dict[str, int]


def _results(value: Sequence[WalkResult]) -> tuple[WalkResult, ...]:
    return tuple(value)


@attrs.frozen
class MemoryProbeRun:
    board: str
    clock: str
    clock_hz: int
    walks: tuple[WalkResult, ...] = attrs.field(converter=_results)
    record: RunRecord


def _walk_results(walks: Sequence[Walk], layers: Sequence[LayerResult]) -> list[WalkResult]:
    by_name = {layer.name: layer for layer in layers}
    missing = [w.name for w in walks if w.name not in by_name]
    if missing:
        raise RunError(f"the memory probe's run lacks the walks {', '.join(missing)}",
                       "run it again; if it repeats, run hpx selftest on the board")
    return [WalkResult(w, by_name[w.name].median, dict(by_name[w.name].events)) for w in walks]


def run_memory_probe(
    board: Board,
    work_dir: Path,
    results_dir: Path,
    *,
    probe: str | None = None,
    packs: Sequence[Path] = (),
    timeout: float = 120.0,
    runner: Runner | None = None,
    events: EventPlan | None = None,
    support: SupportPlan | None = None,
) -> MemoryProbeRun:
    """Build the probe for ``board`` (in its clock mode), run it once through the debug
    probe, and keep its bundle under ``results_dir``. ``runner``, ``events`` and ``support``
    replace the board's own (the tests' fake probe)."""
    if board.emulated:
        raise UsageError(f"{board.name} is emulated: it has no caches or wait states to measure",
                         "run the memory probe on an Apollo board through its debug probe")
    plan = events if events is not None else plan_events(board, EVENTS)
    settings = HarnessSettings(ENGINE, iterations=5, warmup=1,
                               pmu_events=plan.counters.passes[0])
    contribution = memory_probe_contribution(board)
    project = render_project(work_dir / f"{board.name}-memory", board, contribution, settings,
                             support=support)
    chain = get_toolchain("arm-none-eabi-gcc")
    built = build_project(project, chain)
    check_elf(board, built.elf, contribution.buffers)
    runner = runner or runner_for(board, timeout=timeout, probe=probe, packs=packs)
    record = record_workload(runner, built, chain, settings, results_dir,
                             event_names=plan.names, planned_events=plan.counters.passes[0])
    walks = _walk_results(probe_walks(board), record.measurement.layers)
    return MemoryProbeRun(board.name, board.clock, board.clock_hz, walks, record)
