"""The cycle model against measured silicon: tier1_arm and tier1mean_arm on qemu-m55,
estimating the Apollo510 EVB.

    python benchmarks/cycle_estimate.py

Each program is profiled through the pipeline (``hpx_core.pipeline.profile``: build, timed
run), then once more under the instruction-profile plugin, and its profile is estimated for
apollo510_evb. The table prints each operator's emulated instructions, the estimate, the
Apollo510 cycles heliaPROFILER measured (Ambiq's guide ``executorch-ns-kernels.md``: 96 MHz,
median of 25 iterations, PMU cycles around each kernel call; the whole row is the DWT count of
``Method::execute()``), and the error; operators are paired by name and occurrence, as the
two tools number them differently. The measured numbers are the acceptance test: nothing here
feeds them back into the model.
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from hpx_insight.cycles.estimate import Estimate, estimate
from hpx_insight.profile import instruction_profile

from hpx_core.boards import get_board
from hpx_core.config.validate import overrides
from hpx_core.pipeline import profile

REPO = Path(__file__).resolve().parents[1]
TIER1 = REPO / "tests/fixtures/executorch_tier1"
# Apollo510 EVB, arm provider: (operator, cycles) in execution order, and the clean E2E.
MEASURED = {
    "tier1_arm": ([("quantize", 92_689), ("quantized_conv2d", 1_005_563), ("minimum", 8_443),
                   ("quantized_mul", 137_958), ("dequantize", 51_605),
                   ("quantized_conv2d", 1_004_539), ("dequantize", 52_057),
                   ("leaky_relu", 43_743), ("sub", 560_030), ("quantize", 86_982),
                   ("clamp", 413_279), ("dequantize", 52_519)], 3_507_826),
    "tier1mean_arm": ([("quantize", 87_874), ("dequantize", 53_439), ("mean", 741_211),
                       ("quantize", 866), ("dequantize", 776)], 883_076),
}


def short_op(op: str) -> str:
    """``cortex_m::quantize_per_tensor`` -> ``quantize``, ``aten::sub`` -> ``sub``."""
    name = op.split("::")[-1].split(".")[0]
    return name.removesuffix("_per_tensor")


def estimated(program: str, work: Path) -> Estimate:
    settings = overrides("benchmark", engine__type="executorch", engine__backend="arm",
                         target__board="qemu-m55", output__dir=str(work / "results"),
                         profiling__iterations=3, profiling__warmup=1)
    outcome = profile(TIER1 / f"{program}.pte", None, settings)
    assert outcome.build is not None
    found = instruction_profile(outcome.build.elf, get_board("qemu-m55"),
                                outcome.build.toolchain)
    print(f"{program}: the profile equals SysTick's counts: {found.counter_agrees()}",
          flush=True)
    return estimate(found, get_board("apollo510_evb"))


def table(program: str, result: Estimate) -> list[float]:
    rows, whole = MEASURED[program]
    pending = {i: row for i, row in enumerate(rows)}
    errors: list[float] = []
    print(f"\n{program} (qemu-m55 -> apollo510_evb)\n")
    print("| # | operator | instructions | estimated cycles | measured cycles | error |")
    print("|---:|---|---:|---:|---:|---:|")
    for layer in result.layers:
        name = short_op(layer.op)
        index = next(i for i, (op, _) in sorted(pending.items()) if op == name)
        _, cycles = pending.pop(index)
        error = (layer.cycles - cycles) / cycles
        errors.append(error)
        print(f"| {index} | {name} | {layer.instructions:,.0f} | {layer.cycles:,.0f} | "
              f"{cycles:,} | {error:+.1%} |")
    error = (result.whole.cycles - whole) / whole
    print(f"| | whole execute() | {result.whole.instructions:,.0f} | "
          f"{result.whole.cycles:,.0f} | {whole:,} | {error:+.1%} |")
    return errors


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="hpx-cycle-bench-"))
    errors: list[float] = []
    for program in MEASURED:
        errors += table(program, estimated(program, work / program))
    absolute = [abs(e) for e in errors]
    print(f"\n{len(errors)} operators: median absolute error {statistics.median(absolute):.1%}, "
          f"largest {max(absolute):.1%}; within 35%: "
          f"{sum(a <= 0.35 for a in absolute)} of {len(errors)}")


if __name__ == "__main__":
    main()
