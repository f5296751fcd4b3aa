"""The ``tflm`` engine's stages as typed functions; the hooks in ``plugin.py`` only adapt them.

Order for one profile: :func:`tflm_sources` -> :func:`tflm_library` (cached, model-independent)
-> :func:`tflm_firmware` (model glue + CMake linking the library) -> core build/run/capture ->
:func:`tflm_layers` and :func:`hpx_core.tflm_family.compare_outputs` on the capture.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from hpx_core.boards import Board
from hpx_core.engine import FirmwareContribution, LayerRecord, SourceSet
from hpx_core.enginelib import EngineLibrary, ensure_library, library_cmake
from hpx_core.errors import ConfigError
from hpx_core.models import ModelInfo
from hpx_core.sources import materialize
from hpx_core.tflm_family import ArenaPlan, model_glue
from hpx_tflm.config import TflmConfig
from hpx_tflm.library import flatbuffers_stage, public_include_dirs, tflm_spec

ENGINE = "tflm"
BACKENDS = ("reference", "cmsis_nn")
INFO_FILE = "hpx_tflm_info.json"


def check_backend(backend: str | None) -> str:
    chosen = backend or "reference"
    if chosen not in BACKENDS:
        raise ConfigError(f"engine tflm has no backend {chosen!r}",
                          f"choose one of: {', '.join(BACKENDS)}")
    return chosen


def tflm_sources(
    backend: str | None, board: Board, config: TflmConfig, *, offline: bool = False
) -> SourceSet:
    """tflite-micro, flatbuffers, gemmlowp, ruy (+ CMSIS_6, CMSIS-NN) at their baseline pins.

    The core checks the cached checkouts side by side and syncs only one that is not exactly
    at its pin and clean.
    """
    return materialize(ENGINE, check_backend(backend), board=board,
                       source_path=config.source_path, offline=offline)


def tflm_library(sources: SourceSet, backend: str | None, board: Board,
                 jobs: int = 2) -> EngineLibrary:
    """The engine library for this backend/board/toolchain/pins, built once into the cache."""
    chosen = check_backend(backend)
    spec = tflm_spec(sources, chosen, board.cpu_flags, board.name)
    return ensure_library(spec, flatbuffers_stage(sources), jobs=jobs)


@attrs.frozen
class TflmFirmware:
    """The contribution for the core harness, plus what later stages compare against."""

    contribution: FirmwareContribution
    info: Mapping[str, object]


def tflm_firmware(
    model: ModelInfo,
    config: TflmConfig,
    sources: SourceSet,
    library: EngineLibrary,
    arena: ArenaPlan,
) -> TflmFirmware:
    """Model-specific glue + a CMake fragment linking the prebuilt engine library."""
    prepared = model_glue(model, resolver_ops=config.resolver_ops, input=config.input,
                          input_seed=config.input_seed,
                          checkout=sources.path_of("tflite-micro"), arena=arena)
    glue = prepared.glue
    info: dict[str, object] = {
        "engine": ENGINE, "library": library.folder.name, "library_key": library.key,
        **prepared.info,
    }
    includes = [*public_include_dirs(sources), *(p.as_posix() for p in library.include_dirs)]
    files = dict(glue.files) | {INFO_FILE: json.dumps(info, indent=1) + "\n"}
    contribution = FirmwareContribution(
        files=files, sources=glue.sources, include_dirs=tuple(dict.fromkeys(includes)),
        defines=dict(_app_defines(library)), cmake=library_cmake(library),
        fingerprint_inputs={"engine_library": library.key, "model": model.sha256},
        buffers=glue.buffers,
    )
    return TflmFirmware(contribution, info)


def firmware_info(contribution: FirmwareContribution) -> dict[str, Any]:
    """What :func:`tflm_firmware` recorded for the results stage (input, arena, host outputs)."""
    info: dict[str, Any] = json.loads(contribution.files[INFO_FILE])
    return info


def _app_defines(library: EngineLibrary) -> dict[str, str]:
    """The glue sees TFLM headers exactly as the library was compiled."""
    manifest = json.loads((library.folder / "manifest.json").read_text(encoding="utf-8"))
    defines: dict[str, str] = manifest["spec"]["defines"]
    return {k: (v or "1") for k, v in defines.items()}


def tflm_layers(layer_info: Sequence[tuple[int, str, str]],
                counts: Mapping[int, Mapping[str, int]]) -> list[LayerRecord]:
    """Layer records named ``<index>_<op>`` with the TFLite builtin as ``op``."""
    return [LayerRecord(index=i, name=name, op=op, counters=dict(counts.get(i, {})))
            for i, name, op in layer_info]
