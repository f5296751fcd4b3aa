"""Real matrix folders from the loops test engine, for the matrix, compare and report tests.

Each is a real ``hpx matrix`` run (in this process): firmware built by the real toolchain, run
under QEMU, in a private cache so the engine library is built here. The smoke matrix has six
cells (one that fails its build) and two cells pruned by license. The arena matrix's two cells
differ only in the arena the loops engine reports to the memory pass (:data:`ARENAS`).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from loops_engine import loops_registry

from hpx_core import api
from hpx_core.matrix import MatrixResult

REPO = Path(__file__).resolve().parents[2]
KWS = REPO / "examples/models/mlperf_tiny/kws_ref_model.tflite"
AD01 = REPO / "examples/models/mlperf_tiny/ad01_int8.tflite"
_scratch = Path(tempfile.mkdtemp(prefix="hpx-matrices-"))
atexit.register(shutil.rmtree, _scratch, True)

SMOKE = f"""hpx_matrix: 1
name: loops-smoke
labels: {{suite: tests}}
models:
  - {{path: {KWS}, label: kws}}
  - {{path: {AD01}, label: ad01}}
engines:
  - type: loops
    backends: [plain, nops]
    configs:
      std: {{}}
      broken: {{fail: build}}
  - type: helia-rt
boards: [qemu-m55]
exclude:
  - {{config: broken}}
include:
  - {{model: kws, engine: loops, backend: plain, config: std, board: qemu-m4}}
  - {{model: kws, engine: loops, backend: plain, config: broken, board: qemu-m55}}
profile:
  profiling: {{iterations: 3, warmup: 1}}
"""
SLOWER = f"""hpx_matrix: 1
name: loops-slower
models:
  - {{path: {KWS}, label: kws}}
engines:
  - type: loops
    backends: [plain]
    configs:
      std: {{scale: 200}}
boards: [qemu-m55]
profile:
  profiling: {{iterations: 3, warmup: 1}}
"""

ARENAS = {"small": 6_000, "big": 6_600}  # bytes; big is small + 10%
ARENA = f"""hpx_matrix: 1
name: loops-arena
models:
  - {{path: {AD01}, label: ad01}}
engines:
  - type: loops
    backends: [plain]
    configs:
      small: {{arena_bytes: {ARENAS["small"]}}}
      big: {{arena_bytes: {ARENAS["big"]}}}
boards: [qemu-m55]
profile:
  profiling: {{iterations: 1, warmup: 1}}
"""


@contextmanager
def private_cache(folder: Path) -> Iterator[None]:
    """``HPX_CACHE_DIR`` set to ``folder`` for the duration (engine libraries built there)."""
    before = os.environ.get("HPX_CACHE_DIR")
    os.environ["HPX_CACHE_DIR"] = str(folder)
    try:
        yield
    finally:
        if before is None:
            del os.environ["HPX_CACHE_DIR"]
        else:
            os.environ["HPX_CACHE_DIR"] = before


def run_spec(name: str, text: str, cache: str = "cache", **options: object) -> MatrixResult:
    """Write ``text`` as ``<name>.yaml`` and run it into ``<name>/`` with a private cache
    (``cache``: its folder's name, shared by the matrices that name it)."""
    from emulated_firmware import require_tools

    require_tools()
    spec = _scratch / f"{name}.yaml"
    spec.write_text(text, encoding="utf-8")
    with private_cache(_scratch / cache):
        return api.matrix(spec, _scratch / name, reg=loops_registry(), **options)  # type: ignore[arg-type]


@functools.cache
def smoke_matrix() -> MatrixResult:
    """The six-cell smoke matrix (run once per test process)."""
    return run_spec("smoke", SMOKE)


@functools.cache
def slower_matrix() -> MatrixResult:
    """One cell named like a smoke cell, with loops twice as long: a regression."""
    return run_spec("slower", SLOWER)


@functools.cache
def arena_matrix() -> MatrixResult:
    """Two cells of one model whose arenas differ: 6,000 and 6,600 bytes in use (in a cache of
    their own, so the smoke matrix still builds every library it links)."""
    return run_spec("arena", ARENA, cache="arena-cache")
