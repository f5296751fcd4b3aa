"""helia-rt firmware sizes: MLPerf Tiny models x (backend, board) -> flash and RAM.

    python benchmarks/heliart_sizes.py [--only BACKEND@BOARD ...]

Builds each firmware (engine libraries come from the cache, or are built once) and prints a
markdown table. Flash is text + data (what is written to the device); RAM without arena is
data + bss minus the probe tensor arena the interpreter firmware is built with (the first run
on an EVB measures the arena the model needs).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from hpx_tflm_family.glue import ARENA_SYMBOL

from hpx_core.config.validate import overrides
from hpx_core.firmware import symbol_inventory
from hpx_core.pipeline import profile

REPO = Path(__file__).resolve().parents[1]
MODELS = REPO / "examples/models/mlperf_tiny"
MODEL_FILES = ["kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8"]
CONFIGS = [("helia", "apollo510_evb"), ("cmsis_nn", "apollo510_evb"),
           ("reference", "apollo510_evb"), ("reference", "apollo4p_evb")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", default=[], metavar="BACKEND@BOARD")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hpx-sizes-"))
    print("| backend | board | model | text | data | bss | flash | RAM without arena |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for backend, board in CONFIGS:
        if args.only and f"{backend}@{board}" not in args.only:
            continue
        for name in MODEL_FILES:
            settings = overrides("benchmark", engine__type="helia-rt", engine__backend=backend,
                                 target__board=board,
                                 output__dir=str(work / f"{backend}-{board}-{name}" / "results"))
            built = profile(MODELS / f"{name}.tflite", None, settings,
                            until="kernel verification").build
            assert built is not None
            sizes = built.sizes
            arena = next(s.size for s in symbol_inventory(built.elf).symbols
                         if s.name == ARENA_SYMBOL)
            print(f"| {backend} | {board} | {name} | {sizes.text:,} | {sizes.data:,} "
                  f"| {sizes.bss:,} | {sizes.text + sizes.data:,} "
                  f"| {sizes.data + sizes.bss - arena:,} |", flush=True)


if __name__ == "__main__":
    main()
