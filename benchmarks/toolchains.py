"""GCC against LLVM: code size and whole-inference instructions per model, backend and board.

    python benchmarks/toolchains.py [--llvm clang|atfe] [--board qemu-m55 ...] [--only NAME ...]
                                    [--backend reference ...] [--work DIR]

Profiles each MLPerf Tiny model with ``tflm`` (reference and cmsis_nn) and the ExecuTorch
tier1 program (arm provider) on the emulated boards, once with arm-none-eabi-gcc and once with
the LLVM toolchain, and prints a markdown table: ``.text`` bytes and the median uninstrumented
whole-inference instruction count of each, and LLVM/GCC ratios (below 1: LLVM is smaller or
executes fewer instructions). Engine libraries come from the cache or are built once per
toolchain (minutes each, cold); ``--work`` keeps the firmware projects, so a second run only
re-runs QEMU.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from hpx_core.config.validate import overrides
from hpx_core.pipeline import profile

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "examples/models/mlperf_tiny"
TIER1 = REPO / "tests/fixtures/executorch_tier1/tier1_arm.pte"
RUNS = [(MODELS / f"{name}.tflite", "tflm", backend)
        for backend in ("reference", "cmsis_nn")
        for name in ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")]
RUNS.append((TIER1, "executorch", "arm"))


def measure(model: Path, engine: str, backend: str, board: str, toolchain: str,
            work: Path) -> tuple[int, int]:
    """(.text bytes, median whole-inference instructions) of one profile run."""
    settings = overrides("benchmark", engine__type=engine, engine__backend=backend,
                         target__board=board, target__toolchain=toolchain,
                         profiling__iterations=3, profiling__warmup=1,
                         output__dir=str(work / f"{model.stem}-{backend}-{board}-{toolchain}"))
    outcome = profile(model, None, settings)
    assert outcome.build is not None and outcome.measurement is not None
    assert outcome.measurement.validity == "valid", outcome.measurement.issues
    return outcome.build.sizes.text, outcome.measurement.whole_median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llvm", default="clang", choices=["clang", "atfe"])
    parser.add_argument("--board", action="append", default=[])
    parser.add_argument("--only", action="append", default=[], metavar="MODEL_STEM")
    parser.add_argument("--backend", action="append", default=[])
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="hpx-toolchains-"))
    boards = args.board or ["qemu-m55", "qemu-m4"]
    llvm = args.llvm
    print(f"| model | engine/backend | board | text gcc | text {llvm} | ratio "
          f"| instructions gcc | instructions {llvm} | ratio |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    for board in boards:
        for model, engine, backend in RUNS:
            if (args.only and model.stem not in args.only) or (
                    args.backend and backend not in args.backend):
                continue
            gcc = measure(model, engine, backend, board, "arm-none-eabi-gcc", work)
            other = measure(model, engine, backend, board, llvm, work)
            print(f"| {model.stem} | {engine}/{backend} | {board} | {gcc[0]:,} | {other[0]:,} "
                  f"| {other[0] / gcc[0]:.3f} | {gcc[1]:,} | {other[1]:,} "
                  f"| {other[1] / gcc[1]:.3f} |", flush=True)


if __name__ == "__main__":
    main()
