"""PMU event passes on a silicon board: the plan for ``profiling.counters``, and the extra
passes it needs.

The PMU counts four events at once. More events than that take more passes: each pass is
the same firmware with its own ``HPX_PMU_EVENTS``, repeating warm-up and iterations; the first
pass writes the bundle, and the events of the others are merged into it by layer identity.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from hpx_core.boards import Board
from hpx_core.boards.counters import CounterPlan, plan_counters, pmu_events
from hpx_core.errors import HpxError, RunError, ToolError
from hpx_core.firmware import Project, build_project, get_toolchain, render_project
from hpx_core.firmware.placement import check_elf
from hpx_core.firmware.support import SupportPlan, sdk_root, support_plan
from hpx_core.probe.probes import NoProbeError
from hpx_core.results import Measurement, measure
from hpx_core.run.record import judge
from hpx_core.run.runner import Runner


@attrs.frozen
class EventPlan:
    """The passes and the names of the Arm event numbers the board's SDK defines."""

    counters: CounterPlan
    names: dict[int, str] = attrs.field(factory=dict)


def plan_events(board: Board, requested: Sequence[str], *, offline: bool = False) -> EventPlan:
    """Check ``requested`` against the board: emulated boards refuse, DWT boards note cycles
    only, PMU boards get their passes and event names from the pinned SDK's CMSIS header."""
    if board.counter != "pmu":
        return EventPlan(plan_counters(board, requested, {}))
    sdk = support_plan(board, offline=offline).sdk
    known = pmu_events(sdk_root(sdk)) if sdk is not None else {}
    return EventPlan(plan_counters(board, requested, known),
                     {number: name for name, number in known.items()})


def run_extra_passes(
    project: Project,
    plan: EventPlan,
    *,
    toolchain: str,
    runner: Runner,
    support: SupportPlan | None = None,
) -> list[Measurement]:
    """Build and run passes 2.. of ``plan`` beside ``project`` (pass 1) with ``runner``; their
    measurements. ``support`` is the board support pass 1 was rendered with (default: the
    board's own).
    """
    board = project.board
    measured = []
    for number, events in enumerate(plan.counters.passes[1:], start=2):
        where = Path(f"{project.root}-pass{number}")
        again = render_project(where, board, project.contribution,
                               attrs.evolve(project.settings, pmu_events=events), support=support)
        built = build_project(again, get_toolchain(toolchain))
        check_elf(board, built.elf, project.contribution.buffers)
        try:
            run = runner.execute(built.elf)
            capture = judge(board, built.elf, run, runner.timeout)
            measured.append(measure(capture, board, plan.names))
        except (NoProbeError, ToolError):
            raise  # the caller stops after the build, as for the first pass
        except HpxError as error:
            raise RunError(f"event pass {number} ({', '.join(events)}): {error.message}",
                           error.hint) from error
    return measured
