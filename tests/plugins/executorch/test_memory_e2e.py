"""The memory pass with ExecuTorch on qemu-m55: per operator the stack, the planned arena's
high-water and the temporary allocator's bytes, and every count the same without the pass."""

from __future__ import annotations

import shutil

import pytest
from profiles import profile_run

from hpx_core.pipeline.memory_pass import NAME as MEMORY
from hpx_core.results.memory import MemoryUse

from .conftest import TIER1
from .test_profile_e2e import WORK, arm_profile

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None, reason="needs the toolchain"),
    pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs QEMU"),
]


@pytest.mark.parametrize("model", ["tier1", "tier1mean"])
def test_every_operator_has_its_stack_planned_arena_and_temporary_bytes(model: str) -> None:
    outcome = arm_profile(model)
    assert outcome.record is not None and outcome.measurement is not None
    use = outcome.record.result(MEMORY, MemoryUse)
    assert use is not None
    assert [x.index for x in use.layers] == [x.index for x in outcome.measurement.layers]
    assert all(use.stack.base < x.stack <= use.stack.used for x in use.layers)
    assert all({"planned", "temp"} <= set(x.uses) for x in use.layers)
    buffers = {b.name: b for b in use.buffers}
    planned = buffers["planned"]
    assert planned.used == planned.planned == max(x.uses["planned"] for x in use.layers)
    assert planned.configured is not None and planned.used <= planned.configured
    method = buffers["method"]
    assert method.used is not None and method.configured is not None
    assert 0 < method.used <= method.configured
    temp = buffers["temp"]
    assert temp.configured is not None and temp.used is not None
    assert temp.used <= temp.configured


def test_counts_are_the_same_without_the_memory_pass() -> None:
    on = arm_profile("tier1").measurement
    off = profile_run(TIER1 / "tier1_arm.pte", "executorch", "qemu-m55", WORK / "memory-off",
                      backend="arm", memory=False).measurement
    assert on is not None and off is not None
    assert on.whole == off.whole
    assert [x.counts for x in on.layers] == [x.counts for x in off.layers]
