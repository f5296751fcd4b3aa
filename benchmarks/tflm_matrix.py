"""The tflm matrix: MLPerf Tiny models x (backend, board) -> instructions, cold and warm times.

    python benchmarks/tflm_matrix.py [--clean-libraries]

"cold" is a first profile in an empty work folder (sources synced, app built, QEMU run); when
it also had to build the engine library that time is shown separately. "warm" is the same
profile again with nothing changed.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from hpx_tflm.e2e import profile_model

from hpx_core.sources import cache_root

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "examples/models/mlperf_tiny"
MODEL_FILES = [
    "kws_ref_model.tflite",
    "vww_96_int8.tflite",
    "pretrainedResnet_quant.tflite",
    "ad01_int8.tflite",
]
CONFIGS = [("reference", "qemu-m55"), ("cmsis_nn", "qemu-m55"), ("reference", "qemu-m4")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--clean-libraries",
        action="store_true",
        help="drop cached tflm engine libraries first (clean builds)",
    )
    parser.add_argument("--only", action="append", default=[], metavar="BACKEND@BOARD",
                        help="limit to these configurations (repeatable), e.g. cmsis_nn@qemu-m55")
    args = parser.parse_args()
    configs = [c for c in CONFIGS if not args.only or f"{c[0]}@{c[1]}" in args.only]
    if args.clean_libraries:
        for folder in (cache_root() / "engines").glob("tflm_*"):
            shutil.rmtree(folder)
    work = Path(tempfile.mkdtemp(prefix="hpx-matrix-"))
    print(
        "| model | backend | board | layers | whole (instr.) | layer sum | outputs "
        "| library build | cold | warm |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for backend, board in configs:
        for name in MODEL_FILES:
            folder = work / f"{board}-{backend}-{name}"
            cold = profile_model(MODELS / name, backend, board, folder)
            warm = profile_model(MODELS / name, backend, board, folder)
            lib = f"{cold.seconds['library']:.0f} s" if cold.library_built else "cached"
            outputs = cold.extra["outputs"]
            exact = (
                "exact"
                if outputs["exact"]
                else "max abs diff " + str(max(t["max_abs_diff"] for t in outputs["tensors"]))
            )
            cold_s = cold.seconds["total"] - (cold.seconds["library"] if cold.library_built else 0)
            layers = len(cold.measurement.layers)
            print(
                f"| {name} | {backend} | {board} | {layers} | {cold.whole:,} "
                f"| {cold.layer_sum / cold.whole:.4%} | {exact} | {lib} "
                f"| {cold_s:.1f} s ({cold.app_files} files) | {warm.seconds['total']:.2f} s |",
                flush=True,
            )


if __name__ == "__main__":
    main()
