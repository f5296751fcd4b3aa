"""The kernel library of each backend, built once into hpx's engine cache.

A library depends on the backend, the board's CPU flags, the toolchain and the pinned commits,
never on the benchmark, the board's name or where the sources are, so hpx builds it once
(:func:`hpx_core.sdk.enginelib.ensure_library`) and every benchmark's small app links it.
``portable`` compiles the pinned kernelbench-kernels repository; ``cmsis_nn`` and ``ns``
compile the convolution, fully connected and support functions of Arm CMSIS-NN or Ambiq
ns-cmsis-nn (int8 only: their float files are left out).
"""

from __future__ import annotations

from pathlib import Path

from hpx_core.sdk import SourceError, SourceSet
from hpx_core.sdk.enginelib import (
    EngineLibrary,
    LibrarySpec,
    SourceGroup,
    ensure_library,
    source_identity,
    source_roots,
    toolchain_identity,
)
from hpx_core.sdk.firmware import Board, Toolchain

KERNELS_REPO = "kernelbench-kernels"
REPOSITORY = {"portable": KERNELS_REPO, "cmsis_nn": "CMSIS-NN", "ns": "ns-cmsis-nn"}
CMSIS_FOLDERS = ("ConvolutionFunctions", "FullyConnectedFunctions", "NNSupportFunctions")
FLOAT_FILES = ("_f16.c", "_f32.c", "_flt.c")
COMMON_FLAGS = ("-ffunction-sections", "-fdata-sections", "-fno-unwind-tables",
                "-fomit-frame-pointer", "-g")
CMSIS_DEFINES = {"ARM_NN_ENABLE_F16": "0", "ARM_NN_ENABLE_F32": "0"}


def _root(sources: SourceSet, backend: str) -> Path:
    name = REPOSITORY[backend]
    try:
        return sources.path_of(name)
    except KeyError:
        raise SourceError(f"backend {backend} needs {name}, which was not materialized",
                          "run `hpx sources fetch --engine kernelbench --backend "
                          f"{backend}`") from None


def _c_files(folder: Path) -> list[str]:
    return [p.as_posix() for p in sorted(folder.glob("*.c")) if not p.name.endswith(FLOAT_FILES)]


def include_dirs(sources: SourceSet, backend: str) -> tuple[Path, ...]:
    """What code calling the backend's kernels includes."""
    root = _root(sources, backend)
    return (root / "include",) if backend == "portable" else (root / "Include", root)


def library_spec(sources: SourceSet, backend: str, board: Board,
                 toolchain: Toolchain | None = None) -> LibrarySpec:
    """Everything that decides the bytes of the backend's library on ``board`` built with
    ``toolchain`` (default: arm-none-eabi-gcc)."""
    root = _root(sources, backend)
    if backend == "portable":
        files = _c_files(root / "src")
        defines: dict[str, str] = {}
    else:
        files = [f for folder in CMSIS_FOLDERS for f in _c_files(root / "Source" / folder)]
        defines = dict(CMSIS_DEFINES)
    if not files:
        raise SourceError(f"the {REPOSITORY[backend]} checkout at {root} has no C sources",
                          f"`hpx cache clean {REPOSITORY[backend]}` and run again")
    identity = {"engine": "kernelbench", "backend": backend,
                "toolchain": toolchain_identity(toolchain), **source_identity(sources)}
    return LibrarySpec(
        name=f"kernelbench_{backend}",
        groups=[SourceGroup("kernels", files, ("-O2",))],
        include_dirs=[p.as_posix() for p in include_dirs(sources, backend)],
        defines=defines,
        cpu_flags=board.cpu_flags,
        common_flags=COMMON_FLAGS,
        identity=identity,
        roots=source_roots(sources),
    )


def backend_library(sources: SourceSet, backend: str, board: Board, jobs: int,
                    toolchain: Toolchain) -> EngineLibrary:
    """The backend's library for ``board`` built with ``toolchain``: from the cache, or built
    now."""
    return ensure_library(library_spec(sources, backend, board, toolchain), jobs=jobs,
                          toolchain=toolchain)
