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
import time
from pathlib import Path

from hpx_core.config.validate import overrides
from hpx_core.pipeline import ProfileOutcome, profile
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


def timed_profile(model: Path, backend: str, board: str, folder: Path
                  ) -> tuple[ProfileOutcome, float]:
    """One `hpx profile` through the pipeline, and its wall time."""
    settings = overrides("benchmark", engine__type="tflm", engine__backend=backend,
                         target__board=board, output__dir=str(folder / "results"),
                         profiling__iterations=3)
    start = time.monotonic()
    outcome = profile(model, None, settings)
    return outcome, time.monotonic() - start


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
            cold, cold_s = timed_profile(MODELS / name, backend, board, folder)
            _, warm_s = timed_profile(MODELS / name, backend, board, folder)
            assert cold.contribution and cold.build and cold.measurement and cold.record
            library = cold.contribution.libraries[0]
            lib = f"{library.seconds:.0f} s" if library.built else "cached"
            verdict = cold.record.outputs
            exact = verdict.sentence() if verdict is not None else "no host reference"
            cold_s -= library.seconds if library.built else 0
            m = cold.measurement
            print(
                f"| {name} | {backend} | {board} | {len(m.layers)} | {m.whole_median:,} "
                f"| {m.layer_sum / m.whole_median:.4%} | {exact} | {lib} "
                f"| {cold_s:.1f} s ({cold.build.compiled} files) | {warm_s:.2f} s |",
                flush=True,
            )


if __name__ == "__main__":
    main()
