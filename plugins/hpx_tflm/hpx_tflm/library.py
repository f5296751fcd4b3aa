"""The ``tflm`` engine library: upstream TFLite Micro (+ CMSIS-NN) as one static archive.

Flags follow upstream's Makefile: framework code at -Os, kernels and CMSIS-NN at -O2, the
defines of a TF_LITE_STATIC_MEMORY micro build. TFLM's own ``flatbuffers.patch`` is applied to a
copy of the flatbuffers headers staged in the library's cache folder, never in the source cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from hpx_core.sdk import SourceError, SourceSet
from hpx_core.sdk.enginelib import (
    LIB_TOKEN,
    LibrarySpec,
    SourceGroup,
    Stage,
    builds_with_gcc,
    source_identity,
    source_roots,
    toolchain_identity,
)
from hpx_core.sdk.firmware import Toolchain
from hpx_tflm.source_list import MICRO, TflmSources, derive_sources

FLATBUFFERS_PATCH = f"{MICRO}/tools/make/flatbuffers.patch"
COMMON_FLAGS = (
    "-ffunction-sections", "-fdata-sections", "-fno-unwind-tables",
    "-fno-asynchronous-unwind-tables", "-fomit-frame-pointer", "-funsigned-char", "-g",
)
DEFINES = {
    "TF_LITE_STATIC_MEMORY": "", "TF_LITE_DISABLE_X86_NEON": "", "NDEBUG": "",
    "TF_LITE_MCU_DEBUG_LOG": "",
}
# KERNELS_OPTIMIZED_FOR_SPEED is what upstream's Makefile defines for every build
# (OPTIMIZE_KERNELS_FOR, tools/make/Makefile); only the CMSIS-NN kernels read it. Without it
# fully_connected.cc recomputes its kernel sums (arm_vector_sum_s8) on every inference under
# MVE instead of once in Prepare, and svdf.cc refuses to prepare under MVE.
CMSIS_NN_DEFINES = {"CMSIS_NN": "", "ARM_NN_ENABLE_F16": "0", "ARM_NN_ENABLE_F32": "0",
                    "KERNELS_OPTIMIZED_FOR_SPEED": ""}
# binutils 2.40 misassembles an IT-predicated vcvtne GCC 12 emits in this kernel.
NO_IF_CONVERSION = ("kernels/resize_nearest_neighbor.cc", "-fno-if-conversion;-fno-if-conversion2")


def _abs(root: Path, files: Sequence[str]) -> list[str]:
    return [(root / f).as_posix() for f in files]


def _include_dirs(sources: SourceSet, backend: str) -> list[str]:
    dirs = [
        sources.path_of("tflite-micro").as_posix(),
        f"{LIB_TOKEN}/flatbuffers/include",
        sources.path_of("gemmlowp").as_posix(),
        sources.path_of("ruy").as_posix(),
    ]
    if backend == "cmsis_nn":
        cmsis, nn = sources.path_of("CMSIS_6"), sources.path_of("CMSIS-NN")
        dirs += [cmsis.as_posix(), (cmsis / "CMSIS/Core/Include").as_posix(),
                 nn.as_posix(), (nn / "Include").as_posix()]
    return dirs


def public_include_dirs(sources: SourceSet) -> list[str]:
    """What the glue compiled into the app needs (TFLM headers and what they include), but the
    library's own folders (``@LIB@``): the app names those from the library it links."""
    return [d for d in _include_dirs(sources, "reference") if not d.startswith(LIB_TOKEN)]


def tflm_spec(
    sources: SourceSet, backend: str, cpu_flags: Sequence[str],
    listing: TflmSources | None = None, toolchain: Toolchain | None = None,
) -> LibrarySpec:
    """The library spec for ``backend`` on a CPU with ``cpu_flags`` (any board that has it),
    built by ``toolchain`` (default arm-none-eabi-gcc)."""
    root = sources.path_of("tflite-micro")
    nn_root = sources.path_of("CMSIS-NN") if backend == "cmsis_nn" else None
    found = listing or derive_sources(root, backend, nn_root)
    groups = [
        SourceGroup("core", _abs(root, found.core), ("-Os",)),
        SourceGroup("kernels", _abs(root, found.kernels), ("-O2",)),
    ]
    if nn_root is not None:
        groups.append(SourceGroup("cmsis_nn", _abs(nn_root, found.cmsis_nn), ("-O2",)))
    file_options = {  # the workaround is for GCC's code generation
        f: NO_IF_CONVERSION[1] for f in _abs(root, found.kernels)
        if builds_with_gcc(toolchain) and f.endswith(NO_IF_CONVERSION[0])
    }
    defines = dict(DEFINES) | (CMSIS_NN_DEFINES if backend == "cmsis_nn" else {})
    identity = {"engine": "tflm", "backend": backend,
                "toolchain": toolchain_identity(toolchain), **source_identity(sources)}
    return LibrarySpec(
        name=f"tflm_{backend}", groups=groups, include_dirs=_include_dirs(sources, backend),
        defines=defines, cpu_flags=cpu_flags, common_flags=COMMON_FLAGS,
        file_options=file_options, identity=identity,
        stage_inputs={"flatbuffers.patch": _patch_text(root)}, roots=source_roots(sources),
    )


def _patch_text(root: Path) -> str:
    path = root / FLATBUFFERS_PATCH
    if not path.is_file():
        raise SourceError(f"{FLATBUFFERS_PATCH} is missing from the tflite-micro checkout",
                          "use the pinned tflite-micro commit")
    return path.read_text(encoding="utf-8")


def flatbuffers_stage(sources: SourceSet) -> Stage:
    """Copy flatbuffers' ``include/`` into the library folder and apply TFLM's patch there."""
    fb_root = sources.path_of("flatbuffers")
    patch = sources.path_of("tflite-micro") / FLATBUFFERS_PATCH

    def stage(folder: Path) -> None:
        dest = folder / "flatbuffers"
        shutil.copytree(fb_root / "include", dest / "include")
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=folder.as_posix())
        done = subprocess.run(["git", "apply", "-p1", str(patch)], cwd=dest, env=env,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SourceError(f"TFLM's flatbuffers.patch does not apply: {done.stderr.strip()}",
                              "the flatbuffers pin must be the release tflite-micro downloads")

    return stage
