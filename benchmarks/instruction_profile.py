"""What the instruction-profile pass costs: KWS (tflm reference) on qemu-m55, the same ELF
run plainly under QEMU and under hpx's plugin.

    python benchmarks/instruction_profile.py [--repeats 3] [--backend reference]

The model is built and run once through the pipeline; then the plain QEMU run and the pass
with the plugin alternate ``--repeats`` times, so a change in the machine's load falls on both.
Both wall time and QEMU's own CPU time are printed (the machine may be shared), with the ratio
of the pass to the plain run; the pass's Python side (disassembly, joining, symbolizing) is
timed apart.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hpx_insight.cycles.memory import cache_setup
from hpx_insight.document import profile_document
from hpx_insight.profile import instruction_profile, pass_inputs
from hpx_insight.qemu_pass import run_instrumented

from hpx_core.boards import get_board
from hpx_core.config.validate import overrides
from hpx_core.pipeline import profile
from hpx_core.run.qemu import run_on_qemu

REPO = Path(__file__).resolve().parents[1]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
BOARD = get_board("qemu-m55")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child processes) of one call."""
    wall, cpu = time.perf_counter(), _children_cpu()
    run()
    return time.perf_counter() - wall, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--backend", default="reference")
    parser.add_argument("--caches", metavar="BOARD", default=None,
                        help="also simulate this silicon board's caches (as --estimate-for)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpx-insight-bench-"))
    settings = overrides("benchmark", engine__type="tflm", engine__backend=args.backend,
                         target__board=BOARD.name, output__dir=str(work / "results"),
                         profiling__iterations=3, profiling__warmup=1)
    outcome = profile(KWS, None, settings)
    assert outcome.build is not None and outcome.measurement is not None
    elf = outcome.build.elf
    _, ranges, uses = pass_inputs(elf, BOARD, outcome.build.toolchain)
    static = sorted(uses)
    caches = (cache_setup(BOARD, get_board(args.caches), [r.name for r in ranges], None)
              if args.caches else None)
    plain: list[tuple[float, float]] = []
    plugin: list[tuple[float, float]] = []
    run_instrumented(BOARD, elf, ranges, static=static)  # the plugin compiled, before timing
    for _ in range(args.repeats):
        plain.append(timed(lambda: run_on_qemu(BOARD, elf)))
        plugin.append(timed(lambda: run_instrumented(BOARD, elf, ranges, static=static,
                                                     caches=caches)))
    started = time.perf_counter()
    found = instruction_profile(elf, BOARD, outcome.build.toolchain)
    profile_document(found)
    whole = time.perf_counter() - started
    print(f"caches simulated: {caches.board if caches else 'none'}")
    print(f"KWS ({args.backend}) on {BOARD.name}: {outcome.measurement.whole_median:,} "
          f"instructions per inference; profile equals SysTick: {found.counter_agrees()}")
    print("| run | wall (median) | QEMU CPU (median) |")
    print("|---|---:|---:|")
    for label, rows in (("plain QEMU", plain), ("with the plugin", plugin)):
        print(f"| {label} | {statistics.median(r[0] for r in rows):.2f} s | "
              f"{statistics.median(r[1] for r in rows):.2f} s |")
    wall = statistics.median(r[0] for r in plugin) / statistics.median(r[0] for r in plain)
    cpu = statistics.median(r[1] for r in plugin) / statistics.median(r[1] for r in plain)
    print(f"| ratio | {wall:.2f}x | {cpu:.2f}x |")
    print(f"instruction_profile + profile_document end to end: {whole:.2f} s")


if __name__ == "__main__":
    main()
