"""Real result bundles from the emulated board, for the compare, report and CLI tests.

Each bundle comes from selftest firmware built with the real toolchain and run under QEMU,
written by the real bundle writer (``run_and_record``). Variants change one calibration loop,
so the expected difference follows from the code: a ``fpu`` loop iteration is 3 instructions
(vadd.f32, subs, bne), so 50,000 more iterations are exactly 150,000 more instructions. The
``deeper`` variant's stack layer goes :data:`EXTRA_STACK_BYTES` further below the stack pointer
with the same instructions, so it counts the same and uses exactly that much more stack.

Every bundle runs the memory pass and records it as a profile run does (its ``memory``
section: the stack per layer and whole, and the board's regions with what the image takes).
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import shutil
import tempfile
from pathlib import Path

import attrs

from hpx_core.boards import Board, get_board
from hpx_core.firmware import (
    HarnessSettings,
    build_info,
    build_project,
    get_toolchain,
    render_project,
)
from hpx_core.firmware.placement import check_elf
from hpx_core.pipeline.memory_pass import region_fills
from hpx_core.results import BundleInputs
from hpx_core.results.memory import SECTION, memory_use
from hpx_core.run.pass_result import PassResult
from hpx_core.run.record import Recorder, ResultParts, judge, measured, provenance
from hpx_core.runners import runner_for
from hpx_core.selftest.layers import (
    STACK_LAYER_BYTES,
    CalibrationLayer,
    calibration_layers,
    selftest_contribution,
)

_scratch = Path(tempfile.mkdtemp(prefix="hpx-bundles-"))
atexit.register(shutil.rmtree, _scratch, True)

EXTRA_FLOAT_ITERATIONS = 50_000
FLOAT_INSTRUCTIONS_PER_ITERATION = 3  # vadd.f32 + subs + bne
EXTRA_INSTRUCTIONS = EXTRA_FLOAT_ITERATIONS * FLOAT_INSTRUCTIONS_PER_ITERATION
EXTRA_STACK_BYTES = 1024  # the deeper variant's stack layer: 3,072 bytes instead of 2,048


def first_divergent_layer() -> int:
    """Where the qemu-m55 and qemu-m4 selftests part: the first layer whose loop differs (the
    M55's MVE layer, which the M4 lacks)."""
    m55, m4 = (calibration_layers(get_board(name)) for name in ("qemu-m55", "qemu-m4"))
    return next(i for i, (a, b) in enumerate(zip(m55, m4, strict=False)) if a.kind != b.kind)


def _layers(board: Board, variant: str) -> tuple[CalibrationLayer, ...]:
    layers = calibration_layers(board)
    if variant == "slower":
        return tuple(
            attrs.evolve(x, n=x.n + EXTRA_FLOAT_ITERATIONS) if x.name == "float" else x
            for x in layers
        )
    if variant == "deeper":
        return tuple(
            attrs.evolve(x, stack_bytes=STACK_LAYER_BYTES + EXTRA_STACK_BYTES)
            if x.kind == "stack" else x
            for x in layers
        )
    return layers


@functools.cache
def bundle(board_name: str = "qemu-m55", variant: str = "standard", model: bool = False) -> Path:
    """A complete bundle of the selftest (``variant`` standard, slower or deeper) on
    ``board_name``, with its memory pass.

    With ``model``, the bundle records the SHA-256 of its workload source as its model, so
    two different workloads count as two different models.
    """
    from emulated_firmware import require_tools

    require_tools()
    board = get_board(board_name)
    contribution = selftest_contribution(board, _layers(board, variant))
    work = _scratch / f"{board_name}-{variant}-{int(model)}"
    settings = HarnessSettings("selftest", iterations=7, warmup=1,  # medians robust to +-1
                               switches=("HPX_MEMORY_PASS",))
    built = build_project(
        render_project(work / "project", board, contribution, settings),
        get_toolchain("arm-none-eabi-gcc"),
    )
    sha = hashlib.sha256(contribution.files["selftest_layers.S"].encode()).hexdigest()
    runner = runner_for(board, timeout=120)
    recorder = Recorder(work / "results", BundleInputs(
        status="failed", board=board.name, engine="selftest",
        counter_units=board.counter_units(), model_sha256=sha if model else None,
        toolchain=built.toolchain, build=build_info(built), provenance=provenance(),
        config={"board": board.name, "engine": "selftest", "variant": variant}))
    run, recorder = recorder.execute(runner, built.elf)
    capture = judge(board, built.elf, run, runner.timeout)
    use = memory_use(capture)
    assert use is not None, "the selftest's memory pass sent nothing"
    use = attrs.evolve(use, regions=region_fills(check_elf(board, built.elf)))
    memory = PassResult(use, SECTION, use.to_json())
    record = recorder.complete(run, capture, measured(capture, run, board),
                               ResultParts(passes={"memory": memory}))
    return record.bundle
