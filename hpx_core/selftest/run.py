"""``hpx selftest``: build the harness with loops of known length, run it twice, compare.

The calibration workload (selftest_layers) has exact instruction counts from its code, so this
checks the whole chain at once: board support, counter backend, calibration, wire protocol,
parser and the host's unit conversion. A user runs it to check a board setup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import all_boards, get_board
from hpx_core.errors import RunError, UsageError
from hpx_core.firmware import (
    BuildResult,
    HarnessSettings,
    Toolchain,
    build_info,
    build_project,
    get_toolchain,
    render_project,
)
from hpx_core.results.memory import memory_use
from hpx_core.run import RunRecord, run_and_record
from hpx_core.run.runner import Runner
from hpx_core.runners import runner_for
from hpx_core.selftest.layers import (
    STACK_LAYER_DEPTH,
    calibration_layers,
    expected_whole,
    selftest_contribution,
)
from hpx_core.wire import Capture

ENGINE = "selftest"


class SelftestFailedError(RunError):
    """Measured counts do not match the known ones."""


@attrs.frozen
class SelftestCheck:
    """One known count against what every measured iteration gave."""

    name: str
    kind: str
    expected: int
    measured: tuple[int, ...]

    @property
    def passed(self) -> bool:
        """Exact in every iteration: emulated counts are whole instructions, never rounded."""
        return bool(self.measured) and all(m == self.expected for m in self.measured)

    @property
    def worst_error(self) -> int:
        return max((abs(m - self.expected) for m in self.measured), default=-1)


@attrs.frozen
class SelftestReport:
    """The verdict, with every number behind it."""

    board: str
    checks: tuple[SelftestCheck, ...]  # layers, then whole
    calibration_pair: int
    runs_identical: bool
    output_ok: bool
    build: BuildResult
    runs: tuple[RunRecord, ...]

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks) and self.runs_identical and self.output_ok


def stack_check(capture: Capture) -> SelftestCheck:
    """The memory pass's depth of the ``stack`` layer against its known depth below where the
    harness called the engine (bytes below the stack's top, as the pass reports)."""
    use = memory_use(capture)
    if use is None:
        return SelftestCheck("stack depth", "memory pass", STACK_LAYER_DEPTH, ())
    found = [layer.stack for layer in use.layers if layer.name == "stack"]
    return SelftestCheck("stack depth", "memory pass", use.stack.base + STACK_LAYER_DEPTH,
                         tuple(found))


def record_workload(runner: Runner, built: BuildResult, chain: Toolchain,
                    settings: HarnessSettings, results_dir: Path,
                    **more: Any) -> RunRecord:
    """Run a firmware that measures the board rather than a model (the selftest, the memory
    probe) once and keep its bundle: the engine is the settings' own, and ``more`` goes to
    :func:`run_and_record` (event names, planned events)."""
    engine = settings.engine
    return run_and_record(runner, built.elf, results_dir, engine=engine,
                          toolchain=f"{chain.name} {chain.version}", build=build_info(built),
                          config={"board": runner.board.name, "clock": runner.board.clock,
                                  "engine": engine, **attrs.asdict(settings)}, **more)


def run_selftest(
    board_name: str,
    work_dir: Path,
    results_dir: Path,
    *,
    toolchain: str = "arm-none-eabi-gcc",
    iterations: int = 3,
    runs: int = 2,
    timeout: float = 120.0,
) -> SelftestReport:
    """Build and run the selftest ``runs`` times on ``board_name``; bundles go to results_dir."""
    board = get_board(board_name)
    if board.qemu is None:
        emulated = ", ".join(b.name for b in all_boards().values() if b.qemu is not None)
        raise UsageError(
            f"hpx selftest runs on emulated boards; {board.name} is {board.kind}",
            f"choose one of: {emulated}",
        )
    chain = get_toolchain(toolchain)
    settings = HarnessSettings(ENGINE, iterations=iterations, warmup=1,
                               switches=("HPX_MEMORY_PASS",))
    glue = selftest_contribution(board, gnu_as=chain.family == "gcc")
    project = render_project(work_dir / board.name, board, glue, settings)
    built = build_project(project, chain)
    runner = runner_for(board, timeout=timeout)
    records = tuple(
        record_workload(runner, built, chain, settings, results_dir) for _ in range(runs)
    )
    first = records[0].measurement
    layers = calibration_layers(board)
    by_index = {layer.index: layer for layer in first.layers}
    checks = [
        SelftestCheck(
            layer.name, layer.kind, layer.expected, by_index[i].counts if i in by_index else ()
        )
        for i, layer in enumerate(layers)
    ]
    checks.append(
        SelftestCheck("whole inference", "uninstrumented", expected_whole(layers), first.whole)
    )
    checks.append(stack_check(records[0].capture))
    prepared = settings.warmup + 2 * settings.iterations + 1  # and the memory pass's
    output = records[0].capture.outputs().get(0, b"")
    return SelftestReport(
        board=board.name,
        checks=tuple(checks),
        calibration_pair=first.calibration,
        runs_identical=all(r.execution.stream == records[0].execution.stream for r in records),
        output_ok=output == prepared.to_bytes(4, "little"),
        build=built,
        runs=records,
    )
