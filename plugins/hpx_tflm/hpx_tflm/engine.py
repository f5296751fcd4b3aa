"""The ``tflm`` engine's steps as typed functions; the hooks in ``plugin.py`` only adapt them.

Order for one profile: :func:`tflm_sources` -> :func:`tflm_library` (the interpreter and the
model's kernels, each compiled once into the cache) -> :func:`tflm_firmware` (model glue + CMake
linking the library, with the facts the results are checked against) -> core build/run/capture
-> :func:`hpx_tflm_family.family_extra`.
"""

from __future__ import annotations

from collections.abc import Collection

import attrs
from hpx_tflm_family import ArenaPlan, model_glue

from hpx_core.sdk import CodeSize, ConfigError, FirmwareContribution, MemoryLayout, SourceSet
from hpx_core.sdk.firmware import Board, Toolchain
from hpx_core.sdk.models import ModelInfo
from hpx_core.sdk.sources import PinSet, materialize
from hpx_tflm.config import TflmConfig
from hpx_tflm.identity import BACKENDS, ENGINE
from hpx_tflm.kernels import LinkedLibrary, linked_library
from hpx_tflm.library import public_include_dirs

# Code and constants besides the model (harness, interpreter, the model's kernels) on
# qemu-m55: a one-layer model links about 35 KB (reference) or 44 KB (cmsis_nn), the MLPerf
# Tiny models 36-90 KB (reference). LEAST stays below any build, LIKELY above the usual ones.
CODE = CodeSize(least=24 * 1024, likely=128 * 1024)


def check_backend(backend: str | None) -> str:
    chosen = backend or "reference"
    if chosen not in BACKENDS:
        raise ConfigError(f"engine tflm has no backend {chosen!r}",
                          f"choose one of: {', '.join(BACKENDS)}")
    return chosen


def tflm_sources(
    catalog: PinSet, backend: str | None, board: Board, config: TflmConfig, *,
    offline: bool = False,
) -> SourceSet:
    """tflite-micro, flatbuffers, gemmlowp, ruy (+ CMSIS_6, CMSIS-NN) at their pins.

    The core checks the cached checkouts side by side and syncs only one that is not exactly
    at its pin and clean.
    """
    return materialize(catalog, ENGINE, check_backend(backend), board=board,
                       source_path=config.source_path, offline=offline)


def tflm_library(sources: SourceSet, backend: str | None, board: Board,
                 ops: Collection[str] = (), *, kernels: str = "model", jobs: int = 2,
                 toolchain: Toolchain | None = None) -> LinkedLibrary:
    """The engine library for this backend/CPU/toolchain/pins: the interpreter and the kernels
    ``ops`` need, each compiled once into the cache (``kernels='all'``: every kernel)."""
    return linked_library(sources, check_backend(backend), board.cpu_flags, ops,
                          kernels=kernels, jobs=jobs, toolchain=toolchain)


def tflm_firmware(
    model: ModelInfo,
    config: TflmConfig,
    sources: SourceSet,
    library: LinkedLibrary,
    arena: ArenaPlan,
    layout: MemoryLayout | None = None,
    *,
    board: Board | None = None,
    check_layers: str = "off",
) -> FirmwareContribution:
    """Model-specific glue + a CMake fragment linking the prebuilt engine library; its facts
    are the TFLM-family facts with the library named (and, with the layer check on ``board``,
    the host reference of every layer). ``layout`` places model and arena."""
    prepared = model_glue(model, resolver_ops=config.resolver_ops, input=config.input,
                          input_seed=config.input_seed,
                          checkout=sources.path_of("tflite-micro"), arena=arena, layout=layout,
                          board=board, check_layers=check_layers)
    glue = prepared.glue
    includes = [*public_include_dirs(sources), *(p.as_posix() for p in library.include_dirs)]
    return FirmwareContribution(
        files=glue.files, sources=glue.sources, include_dirs=tuple(dict.fromkeys(includes)),
        defines={k: (v or "1") for k, v in library.defines.items()}, cmake=library.cmake,
        fingerprint_inputs={"engine_library": library.key, "model": model.sha256},
        buffers=glue.buffers,
        libraries=list(library.uses),
        facts=attrs.evolve(prepared.facts, library=library.folder.name, library_key=library.key),
        layer_reference=prepared.reference,
    )
