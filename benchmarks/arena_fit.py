"""The memory pass's figures and the arena it suggests, model by model, tried both ways.

    python benchmarks/arena_fit.py [--models kws,vww,resnet,ad] [--backends reference,cmsis_nn]
        [--boards qemu-m55,qemu-m4]

For each model x backend x emulated board, profiles the model with ``tflm`` (the user's hpx
cache; libraries missing from it are built) and prints one line: the deepest stack, the arena
configured, planned, needed and used, then the run again with ``model.arena_size`` at the
needed size (it must complete) and 64 bytes less (it must be refused, naming the same size).
"""

from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path
from typing import Any

from hpx_core.config.validate import overrides
from hpx_core.errors import ConfigError
from hpx_core.pipeline import ProfileOutcome, profile
from hpx_core.pipeline.memory_pass import NAME as MEMORY
from hpx_core.results.memory import MemoryUse

REPO = Path(__file__).resolve().parents[1]
MODELS = {"kws": "kws_ref_model", "vww": "vww_96_int8", "resnet": "pretrainedResnet_quant",
          "ad": "ad01_int8"}
NEEDS = re.compile(r"which needs ([\d,]+) bytes")


def run(model: Path, backend: str, board: str, work: Path, **model_options: Any
        ) -> ProfileOutcome:
    settings = overrides("benchmark", engine__type="tflm", engine__backend=backend,
                         target__board=board, output__dir=str(work / "results"),
                         profiling__iterations=1, profiling__warmup=0,
                         model__arena_size=model_options.get("arena_size"))
    return profile(model, None, settings)


def memory_of(outcome: ProfileOutcome) -> MemoryUse:
    use = outcome.record.result(MEMORY, MemoryUse) if outcome.record is not None else None
    assert use is not None
    return use


def refused_at(model: Path, backend: str, board: str, work: Path, size: int) -> str:
    """What a run with ``size`` bytes of arena says: the bytes its refusal names, or why not."""
    try:
        run(model, backend, board, work, arena_size=size)
    except ConfigError as error:
        found = NEEDS.search(error.message)
        return f"refused, needs {found.group(1)}" if found else f"refused: {error.message}"
    return "ran"


def line(name: str, backend: str, board: str, work: Path) -> str:
    model = REPO / "examples/models/mlperf_tiny" / f"{MODELS[name]}.tflite"
    use = memory_of(run(model, backend, board, work / "default"))
    (arena,) = (b for b in use.buffers if b.name == "arena")
    assert arena.needed is not None, "the runner reported no needed size"
    fits = memory_of(run(model, backend, board, work / "fits", arena_size=arena.needed))
    less = refused_at(model, backend, board, work / "less", arena.needed - 64)
    return (f"{name:6} {backend:9} {board:8} stack {use.stack.used:>6,}  arena configured "
            f"{arena.configured or 0:>9,} planned {arena.planned or 0:>7,} needed "
            f"{arena.needed:>7,} used {arena.used or 0:>7,} | at needed: ran, used "
            f"{fits.stack.used:,} B stack | 64 less: {less}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--backends", default="reference,cmsis_nn")
    parser.add_argument("--boards", default="qemu-m55,qemu-m4")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hpx-arena-fit-") as folder:
        for name in args.models.split(","):
            for backend in args.backends.split(","):
                for board in args.boards.split(","):
                    work = Path(folder) / f"{name}-{backend}-{board}"
                    print(line(name, backend, board, work), flush=True)


if __name__ == "__main__":
    main()
