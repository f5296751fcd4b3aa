"""How many of the Helium (MVE) instructions a model executes sit off a 32-bit boundary.

    python benchmarks/helium_alignment.py

Arm's Helium optimization guide (Arm-Examples/Helium-Optimization,
``General_optimizations/processor_specific.md``, "Instruction alignment") says Helium
instructions should be aligned to 32-bit boundaries, as a misaligned one "can cause stall
cycles in loops even when the Low Overhead Branch (LOB) extension is used". It gives no figure,
and LLVM's Cortex-M55 model (which the cycle model follows) has no such cost. This prints, for
the MLPerf Tiny models (tflm, CMSIS-NN kernels) and the seed's ExecuTorch programs on
qemu-m55, the 32-bit MVE instructions executed per inference, the share of them at an address
that is 2 modulo 4, and what the estimate for apollo510_evb would gain if each cost one cycle:
the size of the documented effect, measured on hpx's own builds, for a reader to set beside
the cycle model's known gap on MVE convolutions (docs/cycle-model.md). Nothing here sets a
constant of the model.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hpx_insight.cycles.estimate import estimate
from hpx_insight.profile import InstructionProfile, instruction_profile
from hpx_insight.work import Work

from hpx_core.boards import get_board
from hpx_core.config.validate import overrides
from hpx_core.pipeline import profile

REPO = Path(__file__).resolve().parents[1]
MLPERF = REPO / "examples/models/mlperf_tiny"
TIER1 = REPO / "tests/fixtures/executorch_tier1"
PROGRAMS = {
    "KWS": (MLPERF / "kws_ref_model.tflite", "tflm", "cmsis_nn"),
    "VWW": (MLPERF / "vww_96_int8.tflite", "tflm", "cmsis_nn"),
    "IC": (MLPERF / "pretrainedResnet_quant.tflite", "tflm", "cmsis_nn"),
    "AD": (MLPERF / "ad01_int8.tflite", "tflm", "cmsis_nn"),
    "tier1_arm": (TIER1 / "tier1_arm.pte", "executorch", "arm"),
    "tier1mean_arm": (TIER1 / "tier1mean_arm.pte", "executorch", "arm"),
}
VECTOR = ("vector_load", "vector_store", "vector_mac", "vector")


def vector_counts(work: Work) -> tuple[float, float]:
    """32-bit MVE instructions executed per pass, and those at 2 modulo 4."""
    passes = max(work.passes, 1)
    wide = [e for e in work.executed if e.size == 4 and e.insn.kind in VECTOR]
    return (sum(e.count for e in wide) / passes,
            sum(e.count for e in wide if e.insn.address % 4 == 2) / passes)


def profiled(model: Path, engine: str, backend: str, work: Path) -> InstructionProfile:
    board = get_board("qemu-m55")
    given = overrides("benchmark", target__board="qemu-m55", output__dir=str(work),
                      profiling__iterations=1, engine__type=engine, engine__backend=backend)
    outcome = profile(model, None, given)
    assert outcome.built is not None
    found = instruction_profile(outcome.built.build.elf, board, outcome.built.build.toolchain)
    assert found.counter_agrees(), "the profile must equal SysTick's counts"
    return found


def main() -> None:
    silicon = get_board("apollo510_evb")
    print("| program | MVE 32-bit per inference | at 2 mod 4 | share | estimate | +1 cycle each |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="hpx-align-") as tmp:
        for name, (model, engine, backend) in PROGRAMS.items():
            found = profiled(model, engine, backend, Path(tmp) / name)
            vector, off = vector_counts(found.whole)
            cycles = estimate(found, silicon).whole.cycles
            share = off / vector if vector else 0.0
            print(f"| {name} | {vector:,.0f} | {off:,.0f} | {share:.1%} | {cycles:,.0f} | "
                  f"{off / cycles:+.1%} |", flush=True)


if __name__ == "__main__":
    main()
