"""Real result bundles from the emulated board, for the compare, report and CLI tests.

Each bundle comes from selftest firmware built with the real toolchain and run under QEMU,
written by the real bundle writer (``run_and_record``). Variants change one calibration loop,
so the expected difference follows from the code: a ``fpu`` loop iteration is 3 instructions
(vadd.f32, subs, bne), so 50,000 more iterations are exactly 150,000 more instructions.
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
from hpx_core.build import HarnessSettings, build_info, build_project, get_toolchain, render_project
from hpx_core.run import run_and_record
from hpx_core.runners import runner_for
from hpx_core.selftest.layers import CalibrationLayer, calibration_layers, selftest_contribution

_scratch = Path(tempfile.mkdtemp(prefix="hpx-bundles-"))
atexit.register(shutil.rmtree, _scratch, True)

EXTRA_FLOAT_ITERATIONS = 50_000
FLOAT_INSTRUCTIONS_PER_ITERATION = 3  # vadd.f32 + subs + bne
EXTRA_INSTRUCTIONS = EXTRA_FLOAT_ITERATIONS * FLOAT_INSTRUCTIONS_PER_ITERATION


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
    return layers


@functools.cache
def bundle(board_name: str = "qemu-m55", variant: str = "standard", model: bool = False) -> Path:
    """A complete bundle of the selftest (``variant`` standard or slower) on ``board_name``.

    With ``model``, the bundle records the SHA-256 of its workload source as its model, so
    two different workloads count as two different models.
    """
    from emulated_firmware import require_tools

    require_tools()
    board = get_board(board_name)
    contribution = selftest_contribution(board, _layers(board, variant))
    work = _scratch / f"{board_name}-{variant}-{int(model)}"
    settings = HarnessSettings("selftest", iterations=7, warmup=1)  # medians robust to +-1
    built = build_project(
        render_project(work / "project", board, contribution, settings),
        get_toolchain("arm-none-eabi-gcc"),
    )
    sha = hashlib.sha256(contribution.files["selftest_layers.S"].encode()).hexdigest()
    record = run_and_record(
        runner_for(board, timeout=120),
        built.elf,
        work / "results",
        engine="selftest",
        toolchain=built.toolchain,
        model_sha256=sha if model else None,
        build=build_info(built),
        config={"board": board.name, "engine": "selftest", "variant": variant},
    )
    return record.bundle
