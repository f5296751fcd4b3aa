"""Real result bundles with a layer check, for the compare, policy and report tests.

The firmware is tests/fixtures/firmware/check_engine.c built with the check and run under QEMU;
the bundle is written by the real writer with the real layer check. Its layer 1 adds one; the
host reference says it adds one (``exact``) or two (``divergent``), so which layer differs
follows from the code.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import struct
import tempfile
from pathlib import Path

from hpx_core.boards import get_board
from hpx_core.contract import LayerReference, ReferenceLayer, ReferenceTensor
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.results import BundleInputs
from hpx_core.results.layer_check import check_layers
from hpx_core.run.pass_result import PassResult
from hpx_core.run.record import Recorder, ResultParts, judge, measured
from hpx_core.runners import runner_for

_scratch = Path(tempfile.mkdtemp(prefix="hpx-check-bundles-"))
atexit.register(shutil.rmtree, _scratch, True)
INPUT = [1, -2, 3, -4, 5, -6, 7, -8]


def _tensor(tensor: int, values: list[int]) -> ReferenceTensor:
    return ReferenceTensor(tensor, "int8", (8,), struct.pack("8b", *values), 0.5, 0)


def reference(plus: int) -> LayerReference:
    """The host's view of the fixture: layer 0 doubles, layer 1 adds ``plus``."""
    hidden = [2 * x for x in INPUT]
    return LayerReference("the fixture's arithmetic", (
        ReferenceLayer(0, (_tensor(1, hidden),), (_tensor(0, INPUT),)),
        ReferenceLayer(1, (_tensor(2, [h + plus for h in hidden]),), (_tensor(1, hidden),)),
    ))


@functools.cache
def checked_bundle(variant: str = "exact") -> Path:
    """A complete qemu-m55 bundle of the check fixture: ``exact`` or ``divergent``."""
    from emulated_firmware import fixture_contribution, require_tools

    require_tools()
    board = get_board("qemu-m55")
    work = _scratch / variant
    project = render_project(work / "project", board, fixture_contribution("check_engine"),
                             HarnessSettings("check_engine", switches=("HPX_CHECK_LAYERS",)))
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"))
    ref = reference(1 if variant == "exact" else 2)
    runner = runner_for(board, timeout=60)
    recorder = Recorder(work / "results", BundleInputs(
        status="failed", board=board.name, engine="check_engine",
        counter_units=board.counter_units(),
        config={"board": board.name, "engine": "check_engine"}))
    run, recorder = recorder.execute(runner, built.elf)
    capture = judge(board, built.elf, run, runner.timeout)
    check = check_layers(capture, ref, "first", "check_engine")
    layer_check = PassResult(check, "layer_check", check.to_json(), check.files())
    record = recorder.complete(run, capture, measured(capture, run, board),
                               ResultParts(passes={"layer check": layer_check}))
    return record.bundle
