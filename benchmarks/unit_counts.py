"""Instruction counts with the model's units against the whole library, model by model.

    python benchmarks/unit_counts.py [--models kws,vww,resnet,ad] [--backends reference,cmsis_nn]
        [--boards qemu-m55,qemu-m4] [--toolchains arm-none-eabi-gcc,clang]

For each model x backend x emulated board x toolchain, profiles the model with ``tflm`` twice in
the user's hpx cache, once with the whole library (``kernels: all``) and once with the model's
units, and prints one line: the whole inference's instructions both ways, whether every layer's
count is the same, whether the loaded image (code, constants, data) is the same byte for byte,
and the units linked. Libraries missing from the cache are built (the whole ones are long).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import lief

from hpx_core.config.validate import overrides
from hpx_core.pipeline import ProfileOutcome, profile

REPO = Path(__file__).resolve().parents[1]
MODELS = {"kws": "kws_ref_model", "vww": "vww_96_int8", "resnet": "pretrainedResnet_quant",
          "ad": "ad01_int8"}


def image(elf: Path) -> list[tuple[str, bytes]]:
    binary = lief.ELF.parse(str(elf))
    assert binary is not None
    return [(str(s.name), bytes(s.content)) for s in binary.sections
            if s.has(lief.ELF.Section.FLAGS.ALLOC) and s.type != lief.ELF.Section.TYPE.NOBITS]


def run(model: str, backend: str, board: str, toolchain: str, kernels: str,
        work: Path) -> ProfileOutcome:
    settings = overrides("benchmark", engine__type="tflm", engine__backend=backend,
                         target__board=board, target__toolchain=toolchain,
                         output__dir=str(work / "results"),
                         engine__config={"kernels": kernels})
    return profile(REPO / f"examples/models/mlperf_tiny/{MODELS[model]}.tflite", None, settings)


def compare(model: str, backend: str, board: str, toolchain: str, work: Path) -> str:
    whole = run(model, backend, board, toolchain, "all", work / "whole")
    units = run(model, backend, board, toolchain, "model", work / "units")
    assert whole.measurement and units.measurement and whole.build and units.build
    assert units.contribution is not None
    same_layers = [x.counts for x in whole.measurement.layers] == [
        x.counts for x in units.measurement.layers]
    same_image = image(whole.build.elf) == image(units.build.elf)
    linked = units.contribution.libraries[0].linked
    return (f"| {model} | {backend} | {board} | {toolchain} | "
            f"{whole.measurement.whole_median:,} | {units.measurement.whole_median:,} | "
            f"{'yes' if same_layers else 'NO'} | {'yes' if same_image else 'NO'} | "
            f"{linked or '?'} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--backends", default="reference,cmsis_nn")
    parser.add_argument("--boards", default="qemu-m55,qemu-m4")
    parser.add_argument("--toolchains", default="arm-none-eabi-gcc,clang")
    args = parser.parse_args()
    print("| model | backend | board | toolchain | whole library | model's units | layers "
          "equal | image equal | units linked |")
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory(prefix="hpx-unit-counts-") as work:
        for toolchain in args.toolchains.split(","):
            for board in args.boards.split(","):
                for backend in args.backends.split(","):
                    for model in args.models.split(","):
                        folder = Path(work) / f"{model}-{backend}-{board}-{toolchain}"
                        print(compare(model, backend, board, toolchain, folder), flush=True)


if __name__ == "__main__":
    main()
