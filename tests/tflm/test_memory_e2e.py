"""The memory pass on the emulated boards with TFLite Micro: every layer's stack and arena,
the arena's planned head equal to what the tflite-micro interpreter plans on the host, and
every count the same with and without the pass.

Needs the pinned sources (mirrors or network), the Arm toolchain and QEMU.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from profiles import profile_run

from hpx_core.pipeline import ProfileOutcome
from hpx_core.pipeline.memory_pass import NAME as MEMORY
from hpx_core.results.memory import MemoryUse

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.emulated,
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs qemu-system-arm"),
]
MODELS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny"
KWS = MODELS / "kws_ref_model.tflite"
MODEL_FILES = ["kws_ref_model.tflite", "vww_96_int8.tflite", "pretrainedResnet_quant.tflite",
               "ad01_int8.tflite"]


def memory_of(outcome: ProfileOutcome) -> MemoryUse:
    use = outcome.record.result(MEMORY, MemoryUse) if outcome.record is not None else None
    assert use is not None
    return use


def host_head(model: Path, capfd: pytest.CaptureFixture[str]) -> int:
    """The planned head (activations and scratch) of the tflite-micro Python interpreter, as
    its recording allocator prints it."""
    from tflite_micro.python.tflite_micro import runtime

    capfd.readouterr()
    runtime.Interpreter.from_file(str(model), arena_size=8 * 1024 * 1024).print_allocations()
    printed = "".join(capfd.readouterr())  # the C++ allocator writes to stderr
    found = re.search(r"Arena allocation head (\d+) bytes", printed)
    assert found, printed
    return int(found.group(1))


@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
@pytest.mark.parametrize("backend", ["reference", "cmsis_nn"])
@pytest.mark.parametrize("name", MODEL_FILES)
def test_every_layer_has_its_stack_and_arena(name: str, backend: str, board: str,
                                             tmp_path: Path) -> None:
    outcome = profile_run(MODELS / name, "tflm", board, tmp_path, backend=backend)
    use = memory_of(outcome)
    measured = outcome.measurement
    assert measured is not None
    assert [layer.index for layer in use.layers] == [layer.index for layer in measured.layers]
    assert all(use.stack.base < layer.stack <= use.stack.used for layer in use.layers)
    assert all("arena" in layer.uses for layer in use.layers)
    (arena,) = use.buffers
    assert arena.used is not None and arena.planned is not None and arena.configured is not None
    assert use.facts["arena.persistent"] < arena.used <= arena.planned <= arena.configured


def test_the_planned_head_is_the_host_interpreters(tmp_path: Path,
                                                  capfd: pytest.CaptureFixture[str]) -> None:
    """The head (every activation and scratch buffer, as the greedy planner lays them out) is
    the same on the device and on the host; the tail holds the interpreter's own structures,
    twice as wide on a 64-bit host, so it differs and is not compared."""
    use = memory_of(profile_run(KWS, "tflm", "qemu-m55", tmp_path, backend="reference"))
    assert use.facts["arena.head"] == host_head(KWS, capfd) == 16_000


def test_counts_are_the_same_without_the_memory_pass(tmp_path: Path) -> None:
    with_pass = profile_run(KWS, "tflm", "qemu-m55", tmp_path / "on", backend="reference")
    without = profile_run(KWS, "tflm", "qemu-m55", tmp_path / "off", backend="reference",
                          memory=False)
    assert without.record is not None and without.record.result(MEMORY, MemoryUse) is None
    on, off = with_pass.measurement, without.measurement
    assert on is not None and off is not None
    assert on.whole == off.whole
    assert [x.counts for x in on.layers] == [x.counts for x in off.layers]
