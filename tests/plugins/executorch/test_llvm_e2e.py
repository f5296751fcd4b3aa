"""The ExecuTorch arm provider built with the LLVM toolchain (clang + lld) on qemu-m55.

The tier1 program runs every instruction of its export manifest, in order, with the output
bit-exact to the host reference: the same checks as the GCC build. Needs the pinned sources,
clang-19/lld-19, the GNU Arm libraries and QEMU; the runtime is built once (minutes, cold).
"""

from __future__ import annotations

from pathlib import Path

from profiles import LLVM, llvm_e2e_marks, outputs_exact, profile_run

from .conftest import TIER1
from .test_profile_e2e import MANIFEST, _ids

pytestmark = llvm_e2e_marks()


def test_tier1_arm_built_with_llvm_runs_its_instruction_list(tmp_path: Path) -> None:
    outcome = profile_run(TIER1 / "tier1_arm.pte", "executorch", "qemu-m55", tmp_path,
                          backend="arm", toolchain=LLVM)
    assert outcome.build is not None and outcome.build.toolchain == LLVM
    m = outcome.measurement
    assert m is not None and m.validity == "valid", m and m.issues
    program = MANIFEST["models"]["tier1"]["programs"]["arm"]
    assert [layer.name.rsplit(":", 1)[1] for layer in m.layers] == _ids("tier1", "arm")
    assert [layer.op for layer in m.layers] == [
        i["operator"].rsplit(".", 1)[0] for i in program["instructions"]]
    assert all(layer.calls == 1 and min(layer.counts) > 0 for layer in m.layers)
    # Each layer's window also holds the runtime's tracing code around the kernel call (after
    # start_profiling returns, before end_profiling is called), which the uninstrumented whole
    # run does not execute; clang compiles that code longer than GCC does, so the layer sum may
    # exceed the whole by a few instructions per layer (GCC: it stays below). Either way the two
    # agree within 0.15 %.
    layer_sum = sum(layer.counts[0] for layer in m.layers)
    assert abs(m.whole[0] - layer_sum) < 0.0015 * m.whole[0], (layer_sum, m.whole[0])
    assert outcome.findings and all(f.passed for f in outcome.findings), outcome.findings
    assert outputs_exact(outcome)
