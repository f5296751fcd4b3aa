"""The ``helia-rt`` engine's steps as typed functions; the hooks in ``plugin.py`` adapt them.

Order for one profile: :func:`heliart_sources` (license check first, then the pinned source,
a ``source_path``, a prebuilt ``dist_path`` or a release asset) -> :func:`heliart_library`
(the interpreter and the model's kernels, each compiled once into the cache) ->
:func:`heliart_firmware` (the TFLM-family glue + CMake linking the library) -> core build ->
symbol checks -> run on an Apollo board.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

import attrs
from hpx_tflm_family import ArenaPlan, model_glue

from hpx_core.sdk import (
    CodeSize,
    ConfigError,
    FirmwareContribution,
    MemoryLayout,
    SourceRepo,
    SourceSet,
)
from hpx_core.sdk.firmware import Board, Toolchain, all_boards
from hpx_core.sdk.models import ModelInfo
from hpx_core.sdk.sources import (
    PinSet,
    check_may_run,
    materialize,
    materialize_pins,
    require_min_version,
)
from hpx_heliart.config import HeliaRtConfig
from hpx_heliart.dist import check_distribution, download_release
from hpx_heliart.identity import BACKENDS, ENGINE
from hpx_heliart.library import HeliaRtLibrary, ensure_heliart
from hpx_heliart.library_cmake import BUILD_TYPE
from hpx_heliart.library_units import ensure_heliart_units

VARIANTS = ("release_with_logs", "debug")
DIST_BACKEND = "helia"  # what a release bundle's archive contains
# Code and constants besides the model: the interpreter as upstream TFLM's (KWS, reference:
# about 62 KB), ns-cmsis-nn's Helium kernels add about 58 KB (docs/choosing-an-engine.md).
CODE = CodeSize(least=24 * 1024, likely=192 * 1024)
DIST_THIRD_PARTY = ("third_party/flatbuffers/include", "third_party/gemmlowp", "third_party/ruy",
                    "third_party/kissfft")


def check_backend(backend: str | None) -> str:
    chosen = backend or "helia"
    if chosen not in BACKENDS:
        raise ConfigError(f"engine helia-rt has no backend {chosen!r}",
                          f"choose one of: {', '.join(BACKENDS)}")
    return chosen


def check_variant(config: HeliaRtConfig) -> str:
    variant = config.variant or BUILD_TYPE
    if variant not in VARIANTS:
        raise ConfigError(
            f"heliaRT variant {variant!r} cannot be profiled",
            "use release_with_logs (release defines TF_LITE_STRIP_ERROR_STRINGS, which compiles "
            "the profiler hooks out) or debug",
        )
    return variant


def prebuilt(config: HeliaRtConfig) -> bool:
    return config.dist_path is not None or config.source is not None


def heliart_sources(
    catalog: PinSet, backend: str | None, board: Board, config: HeliaRtConfig, *,
    offline: bool = False,
) -> SourceSet:
    """heliaRT (+ its backend's kernel library) after the license check; version floor checked."""
    chosen = check_backend(backend)
    check_may_run(catalog, ENGINE, chosen, board, all_boards().values())
    if not prebuilt(config):
        if config.variant not in (None, BUILD_TYPE):
            raise ConfigError("engine.config.variant applies to prebuilt distributions",
                              f"source builds use {BUILD_TYPE}; unset variant")
        sources = materialize(catalog, ENGINE, chosen, board=board,
                              source_path=config.source_path, offline=offline)
        require_min_version(catalog.pin("helia-rt"), sources.path_of("helia-rt"))
        return sources
    if chosen != DIST_BACKEND:
        raise ConfigError(
            f"a prebuilt heliaRT distribution carries the helia backend, not {chosen}",
            "use backend helia with dist_path/source, or build the other backends from source",
        )
    return _dist_sources(catalog, board, config, offline=offline)


def _dist_sources(catalog: PinSet, board: Board, config: HeliaRtConfig, *,
                  offline: bool) -> SourceSet:
    variant = check_variant(config)
    if config.dist_path is not None:
        path, origin = config.dist_path, str(config.dist_path)
    else:
        assert config.source is not None
        if offline:
            raise ConfigError("engine.config.source downloads a release, but the build is offline",
                              "use dist_path with a downloaded bundle, or build online")
        path = download_release(config.source.repo, config.source.ref)
        origin = f"{config.source.repo}@{config.source.ref}"
    dist = check_distribution(path, board.core, variant, origin)
    digest = hashlib.sha256(dist.archive.read_bytes()).hexdigest()
    pin = catalog.pin("helia-rt")
    common = materialize_pins([catalog.pin("CMSIS_6")], offline=offline)
    repo = SourceRepo("helia-rt", origin, f"prebuilt-{dist.version}-sha256:{digest[:16]}",
                      dist.root, pin.license)
    return SourceSet([*common.repos, repo], "development-overrides")


def heliart_library(sources: SourceSet, backend: str | None, board: Board,
                    config: HeliaRtConfig, jobs: int = 2,
                    toolchain: Toolchain | None = None,
                    ops: Collection[str] = ()) -> HeliaRtLibrary:
    """The library for this backend/board/toolchain/pins: the units ``ops`` need (or, with
    ``kernels: all``, the whole backend), each compiled once into the cache; or the prebuilt
    distribution's archive."""
    chosen = check_backend(backend)
    if not prebuilt(config) and config.kernels == "all":
        return ensure_heliart(sources, chosen, board.cpu_flags, jobs=jobs, toolchain=toolchain)
    if not prebuilt(config):
        return ensure_heliart_units(sources, chosen, board.cpu_flags, ops, jobs=jobs,
                                    toolchain=toolchain)
    variant = check_variant(config)
    root = sources.path_of("helia-rt")
    dist = check_distribution(root, board.core, variant)
    defines = ["TF_LITE_STATIC_MEMORY"] + (["NDEBUG"] if variant == BUILD_TYPE else [])
    return HeliaRtLibrary(
        backend=chosen, key=hashlib.sha256(dist.archive.read_bytes()).hexdigest(),
        folder=root, archives=[dist.archive],
        include_dirs=[root, *(root / d for d in DIST_THIRD_PARTY)], defines=defines,
        built=False, seconds=0.0)


def _defines(library: HeliaRtLibrary) -> dict[str, str]:
    pairs = (d.split("=", 1) for d in library.defines)
    return {p[0]: (p[1] if len(p) > 1 else "1") for p in pairs}


def heliart_firmware(model: ModelInfo, config: HeliaRtConfig, sources: SourceSet,
                     library: HeliaRtLibrary, arena: ArenaPlan,
                     layout: MemoryLayout | None = None, *, board: Board | None = None,
                     check_layers: str = "off") -> FirmwareContribution:
    """The core's TFLM-family glue for ``model`` (placed per ``layout``) + a CMake fragment
    linking the library (with the layer check, as for ``tflm``)."""
    prepared = model_glue(model, resolver_ops=config.resolver_ops, input=config.input,
                          input_seed=config.input_seed, checkout=sources.path_of("helia-rt"),
                          arena=arena, layout=layout, board=board, check_layers=check_layers)
    glue = prepared.glue
    return FirmwareContribution(
        files=glue.files, sources=glue.sources,
        include_dirs=tuple(dict.fromkeys(p.as_posix() for p in library.include_dirs)),
        defines=_defines(library), cmake=library.cmake(),
        fingerprint_inputs={"engine_library": library.key, "model": model.sha256},
        buffers=glue.buffers,
        libraries=[library.use()],
        facts=attrs.evolve(prepared.facts, library=library.folder.name, library_key=library.key),
        layer_reference=prepared.reference,
    )
