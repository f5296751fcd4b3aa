"""The cycle model against measured Apollo510 silicon, and the fit of its memory costs.

    python benchmarks/cycle_estimate.py          # errors with the costs in the code
    python benchmarks/cycle_estimate.py --fit    # and the fit that chose them
    python benchmarks/cycle_estimate.py --fit --alignment  # with a cost per misaligned
                                                            # Helium instruction as well

The calibration set, and nothing else, chooses the memory costs no public document gives
(``hpx_insight.cycles.memory_fit``; docs/cycle-model.md, "Memory costs"), keeping the ranking
Ambiq's memory table documents (``RANKED``: an MRAM line fill costs at least a shared SRAM one):

- the seed's table (``../shared/docs/silicon-reference.md``, from heliaPROFILER's guide
  ``executorch-ns-kernels.md``): tier1_arm and tier1mean_arm built with the executorch engine's
  arm provider, per operator (PMU cycles around each kernel call) and whole (``execute()``),
  weights in MRAM and arenas in shared SRAM as the guide's configs place them;
- Ambiq's published Apollo510 MLPerf Tiny rows (AmbiqAI/helia-profiler 37fa78c,
  ``results/mlperf_tiny/ap510_hpx_vs_autodeploy.md``): the heliaRT gcc and AutoDeploy gcc
  latencies at 96 MHz, with their placements (weights/arena: VWW MRAM/TCM, the others
  TCM/TCM). heliaRT and AutoDeploy's TFLM may run only on Ambiq CPUs, so each model is profiled
  with hpx's tflm engine and CMSIS-NN kernels, the openly licensed build closest to them: the
  rows say how far that stand-in is, they are not its own measurements.

Each program is built and profiled through the pipeline on qemu-m55, then once more under the
instruction-profile plugin with the Apollo510's caches simulated, and estimated for
apollo510_evb. The leave-one-out error refits without each program and predicts it. The
programs are built with the first ``arm-none-eabi-gcc`` on PATH, which the run names first.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
from pathlib import Path

import attrs
from helium_alignment import vector_counts
from hpx_insight.cycles.estimate import Estimate, SlotEstimate, estimate
from hpx_insight.cycles.memory import FITTED, RANKED, cache_setup
from hpx_insight.cycles.memory_fit import FitRow, MemoryFit, fit_memory, summary
from hpx_insight.profile import InstructionProfile, instruction_profile
from hpx_insight.qemu_pass import NamedRange, board_ranges
from hpx_insight.work import Work

from hpx_core.boards import get_board
from hpx_core.config.validate import overrides
from hpx_core.firmware.toolchain import get_toolchain
from hpx_core.pipeline import profile

REPO = Path(__file__).resolve().parents[1]
TIER1 = REPO / "tests/fixtures/executorch_tier1"
MLPERF = REPO / "examples/models/mlperf_tiny"
MHZ = 96_000  # cycles per millisecond at the LP clock the rows were measured at
# Apollo510 EVB, arm provider: (operator, cycles) in execution order, and the clean E2E.
SEED = {
    "tier1_arm": ([("quantize", 92_689), ("quantized_conv2d", 1_005_563), ("minimum", 8_443),
                   ("quantized_mul", 137_958), ("dequantize", 51_605),
                   ("quantized_conv2d", 1_004_539), ("dequantize", 52_057),
                   ("leaky_relu", 43_743), ("sub", 560_030), ("quantize", 86_982),
                   ("clamp", 413_279), ("dequantize", 52_519)], 3_507_826),
    "tier1mean_arm": ([("quantize", 87_874), ("dequantize", 53_439), ("mean", 741_211),
                       ("quantize", 866), ("dequantize", 776)], 883_076),
}
# model file, weights/arena placement, heliaRT gcc ms, AutoDeploy gcc ms (LP, 96 MHz)
MLPERF_ROWS = {
    "KWS": ("kws_ref_model.tflite", ("MCU_TCM", "MCU_TCM"), 21.159, 22.673),
    "VWW": ("vww_96_int8.tflite", ("MCU_MRAM", "MCU_TCM"), 76.799, 80.783),
    "IC": ("pretrainedResnet_quant.tflite", ("MCU_TCM", "MCU_TCM"), 53.161, 55.332),
    "AD": ("ad01_int8.tflite", ("MCU_TCM", "MCU_TCM"), 0.767, 1.428),
}
MISALIGNED = "misaligned_helium"  # --alignment: 32-bit MVE instructions at 2 modulo 4
WEIGHTS = ("hpx_et_program", "hpx_tflm_model")  # the planned buffers holding the weights
EVENTS = {"MCU_MRAM read_fill": "mram_read_fill", "SHARED_SRAM read_fill": "sram_read_fill",
          "SHARED_SRAM write_miss": "sram_write_miss"}


REFERENCE_GCC = 15  # the seed's programs were built with GCC 15.2 (docs/cycle-model.md)


def gcc_major(version: str) -> int:
    """``arm-none-eabi-gcc (15:12.2.rel1-1) 12.2.1 20221205`` -> 12 (0 when unreadable)."""
    found = re.search(r"\) (\d+)\.", version)
    return int(found.group(1)) if found else 0


def short_op(op: str) -> str:
    """``cortex_m::quantize_per_tensor`` -> ``quantize``, ``aten::sub`` -> ``sub``."""
    name = op.split("::")[-1].split(".")[0]
    return name.removesuffix("_per_tensor")


def estimated(model: Path, work: Path, weights: str, arena: str, **settings: object
              ) -> tuple[Estimate, InstructionProfile]:
    """Build and run ``model`` on qemu-m55, profile it with the Apollo510's caches, and
    estimate it with its buffers placed in ``weights`` / ``arena`` (silicon regions)."""
    emulated, silicon = get_board("qemu-m55"), get_board("apollo510_evb")
    given = overrides("benchmark", target__board="qemu-m55", output__dir=str(work / "results"),
                      profiling__iterations=3, profiling__warmup=1, **settings)
    outcome = profile(model, None, given)
    assert outcome.built is not None
    buffers = [NamedRange(p.buffer.symbol, p.address, p.address + p.size)
               for p in outcome.built.placement.buffers if p.size > 0]
    placed = {b.name: weights if b.name in WEIGHTS else arena for b in buffers}
    names = [r.name for r in board_ranges(emulated, buffers)]
    found = instruction_profile(outcome.built.build.elf, emulated,
                                outcome.built.build.toolchain, buffers=buffers,
                                caches=cache_setup(emulated, silicon, names, placed))
    assert found.counter_agrees(), "the profile must equal SysTick's counts"
    print(f"{model.name}: buffers {placed}; pass {found.seconds:.2f} s", flush=True)
    return estimate(found, silicon, placed), found


def aligned(rows: list[FitRow], works: list[Work]) -> list[FitRow]:
    """``rows`` with their misaligned Helium instructions as one more event for the fit to
    price (benchmarks/helium_alignment.py; docs/cycle-model.md)."""
    return [attrs.evolve(row, events={**row.events, MISALIGNED: vector_counts(work)[1]})
            for row, work in zip(rows, works, strict=True)]


def _events(slot: SlotEstimate, scoped: bool) -> dict[str, float]:
    out = {EVENTS[k]: n for k, n in slot.events.items() if k in EVENTS}
    return out | ({"pmu_scope": slot.calls} if scoped else {})


def seed_rows(program: str, result: Estimate) -> list[FitRow]:
    rows, whole = SEED[program]
    pending = dict(enumerate(rows))
    out = []
    for layer in result.layers:
        name = short_op(layer.op)
        index = next(i for i, (op, _) in sorted(pending.items()) if op == name)
        out.append(FitRow(f"{program} #{index} {name}", program, pending.pop(index)[1],
                          sum(layer.classes.values()), _events(layer, True)))
    out.append(FitRow(f"{program} whole", program, whole, sum(result.whole.classes.values()),
                      _events(result.whole, False)))
    return out


def mlperf_rows(name: str, result: Estimate) -> list[FitRow]:
    _, _, helia_ms, autodeploy_ms = MLPERF_ROWS[name]
    core, events = sum(result.whole.classes.values()), _events(result.whole, False)
    return [FitRow(f"{name} heliaRT", name, helia_ms * MHZ, core, events),
            FitRow(f"{name} AutoDeploy", name, autodeploy_ms * MHZ, core, events)]


def calibration_set(work: Path, *, alignment: bool = False) -> list[FitRow]:
    rows: list[FitRow] = []
    for program in SEED:
        result, found = estimated(TIER1 / f"{program}.pte", work / program, "MCU_MRAM",
                                  "SHARED_SRAM", engine__type="executorch",
                                  engine__backend="arm")
        more = seed_rows(program, result)
        rows += aligned(more, [*(x.work for x in found.layers), found.whole]) if alignment \
            else more
    for name, (file, (weights, arena), _, _) in MLPERF_ROWS.items():
        result, found = estimated(MLPERF / file, work / name, weights, arena,
                                  engine__type="tflm", engine__backend="cmsis_nn")
        more = mlperf_rows(name, result)
        rows += aligned(more, [found.whole] * len(more)) if alignment else more
    return rows


def table(rows: list[FitRow], costs: dict[str, float], fit: MemoryFit | None) -> None:
    print("| row | measured | core model | + memory and scopes | error before | error after |"
          + (" held out |" if fit else ""))
    print("|---|---:|---:|---:|---:|---:|" + ("---:|" if fit else ""))
    used = MemoryFit(costs, {}, {})
    for row in rows:
        after = used.predict(row)
        line = (f"| {row.name} | {row.measured:,.0f} | {row.core:,.0f} | {after:,.0f} | "
                f"{row.core / row.measured - 1:+.1%} | {after / row.measured - 1:+.1%} |")
        print(line + (f" {fit.held_out[row.name]:+.1%} |" if fit else ""))


def report(rows: list[FitRow], costs: dict[str, float], fit: MemoryFit | None) -> None:
    used = MemoryFit(costs, {}, {})
    for label, chosen in (("seed operators", [r for r in rows if "#" in r.name]),
                          ("whole programs", [r for r in rows if "#" not in r.name])):
        before = {r.name: r.core / r.measured - 1 for r in chosen}
        after = {r.name: used.predict(r) / r.measured - 1 for r in chosen}
        b, a = summary(before), summary(after)
        held = "" if fit is None else (
            "; held out: median |error| {:.1%}, largest {:.1%}".format(
                *summary({r.name: fit.held_out[r.name] for r in chosen})))
        print(f"{label}: median |error| {b[0]:.1%} -> {a[0]:.1%}, largest {b[1]:.1%} -> "
              f"{a[1]:.1%}; within 10%: {sum(abs(e) <= 0.10 for e in after.values())} of "
              f"{len(after)}{held}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="refit the memory costs and "
                        "print the leave-one-out error")
    parser.add_argument("--alignment", action="store_true", help="give the fit a cost per "
                        "Helium instruction off a 32-bit boundary as well (not in the model)")
    args = parser.parse_args()
    gcc = get_toolchain()
    print(f"compiler: {gcc.compiler} ({gcc.version})", flush=True)
    if gcc_major(gcc.version) < REFERENCE_GCC:
        print(f"the seed's table was built with GCC 15.2, and GCC {gcc_major(gcc.version)} "
              "compiles some of its operators into other code (minimum: 15 instructions per "
              "16 bytes against GCC 15's 8): put a GCC 15 first on PATH for the figures "
              "docs/cycle-model.md gives", flush=True)
    rows = calibration_set(Path(tempfile.mkdtemp(prefix="hpx-cycle-bench-")),
                           alignment=args.alignment)
    fit = fit_memory(rows, at_least=RANKED) if args.fit else None
    if fit is not None:
        print("\nfitted costs (cycles per event):",
              {k: round(v, 2) for k, v in fit.costs.items()})
        print("in the code (hpx_insight/cycles/memory.py FITTED):", FITTED)
        held = summary(fit.held_out)
        groups = {g: [abs(fit.held_out[r.name]) for r in rows if r.group == g]
                  for g in dict.fromkeys(r.group for r in rows)}
        print(f"leave-one-program-out: median |error| {held[0]:.1%}, largest {held[1]:.1%}; "
              "median per program: " + ", ".join(
                  f"{g} {statistics.median(e):.1%}" for g, e in groups.items()))
    print()
    table(rows, dict(FITTED), fit)
    print()
    report(rows, dict(FITTED), fit)


if __name__ == "__main__":
    main()
