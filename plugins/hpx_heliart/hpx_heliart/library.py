"""A heliaRT backend as prebuilt archives in the content-addressed engine cache.

The library depends on the backend, the board's CPU flags, the toolchain and the source pins,
never on the model, the board's name or where the sources are: every model's firmware links the
same archives. It is built in a temporary folder beside its final place (``<cache>/engines``,
where :mod:`hpx_core.sdk.enginelib` keeps the other engines) and renamed into place only when every
archive exists; a file lock per key makes concurrent runs build it once. Kept: the archives,
the include folders (relative to the source roots) and compile definitions heliaRT's targets
export (so the glue sees its headers as the library was built), and a manifest. The build tree
is dropped.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.sdk import BuildError, LibraryUse, SourceSet, get_logger
from hpx_core.sdk.cache import cache_root
from hpx_core.sdk.enginelib import (
    builds_with_gcc,
    cached_folder,
    cmake_library,
    cmake_quote,
    debug_prefix_flags,
    identity_key,
    source_identity,
    source_roots,
    toolchain_identity,
)
from hpx_core.sdk.enginelib.identity import portable, resolved
from hpx_core.sdk.firmware import Toolchain
from hpx_heliart.library_cmake import BUILD_TYPE, backend_target, library_cmakelists

log = get_logger()
RECIPE = 2
COMMON_FLAGS = ("-ffunction-sections", "-fdata-sections", "-fno-unwind-tables",
                "-fno-asynchronous-unwind-tables", "-fomit-frame-pointer", "-funsigned-char",
                "-g")
KERNEL_REPO = {"helia": "ns-cmsis-nn", "cmsis_nn": "CMSIS-NN"}
INTERFACE = """
file(GENERATE OUTPUT "${{CMAKE_BINARY_DIR}}/hpx_interface.txt" CONTENT
"$<JOIN:$<TARGET_PROPERTY:{target},INTERFACE_INCLUDE_DIRECTORIES>,;>
$<JOIN:$<TARGET_PROPERTY:{target},INTERFACE_COMPILE_DEFINITIONS>,;>
")
"""


def _paths(value: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(Path(v) for v in value)


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in value)


@attrs.frozen
class HeliaRtLibrary:
    """A built heliaRT backend: archives in link order, what its users compile with."""

    backend: str
    key: str
    folder: Path
    archives: tuple[Path, ...] = attrs.field(converter=_paths)
    include_dirs: tuple[Path, ...] = attrs.field(converter=_paths)
    defines: tuple[str, ...] = attrs.field(converter=_strs)
    built: bool
    seconds: float
    build: Mapping[str, Any] | None = None  # this run's compile units and compiler cache

    def use(self) -> LibraryUse:
        """How the firmware's bundle names this library and what getting it took."""
        facts = self.build or {}
        return LibraryUse(f"helia-rt {self.backend}", self.key, self.built, self.seconds,
                          facts.get("compiled", 0), facts.get("compiler_cache"),
                          facts.get("linked"))  # kept as units: what of it is linked

    def cmake(self, target: str = "hpx_app") -> str:
        """A CMake fragment linking the archives into ``target`` (kernels after the runtime)."""
        items = ["-Wl,--start-group", *(a.as_posix() for a in self.archives), "-Wl,--end-group"]
        body = "\n".join(f"  {cmake_quote(item)}" for item in items)
        return f"target_link_libraries({target} PRIVATE\n{body}\n)\n"


def library_key(sources: SourceSet, backend: str, cpu_flags: Sequence[str],
                toolchain: Toolchain | None = None) -> str:
    """What changes the archives: backend, CPU flags, toolchain, pins; no board, no path."""
    doc = {
        "recipe": RECIPE, "backend": backend, "build_type": BUILD_TYPE,
        "cpu_flags": list(cpu_flags), "flags": COMMON_FLAGS,
        "toolchain": toolchain_identity(toolchain), **source_identity(sources),
    }
    return identity_key(doc, source_roots(sources))


def _kernels(sources: SourceSet, backend: str) -> Path | None:
    repo = KERNEL_REPO.get(backend)
    return sources.path_of(repo) if repo else None


def project_text(sources: SourceSet, backend: str, cpu_flags: Sequence[str], temp: Path,
                 final: Path, toolchain: Toolchain | None) -> str:
    """heliaRT's project for ``backend``, compiled in ``temp`` for the cache folder ``final``,
    writing what its target exports (:data:`INTERFACE`)."""
    flags = [*cpu_flags, *COMMON_FLAGS, *debug_prefix_flags(cache_root(), temp, final)]
    text = library_cmakelists(sources.path_of("helia-rt"), backend, _kernels(sources, backend),
                              sources.path_of("CMSIS_6") / "CMSIS/Core/Include", flags,
                              gnu=builds_with_gcc(toolchain))
    return text + INTERFACE.format(target=backend_target(backend))


def _build(sources: SourceSet, backend: str, cpu_flags: Sequence[str], temp: Path,
           final: Path, jobs: int, toolchain: Toolchain | None) -> dict[str, Any]:
    project, build, log_file = temp / "project", temp / "build", temp / "build.log"
    project.mkdir()
    text = project_text(sources, backend, cpu_flags, temp, final, toolchain)
    (project / "CMakeLists.txt").write_text(text, encoding="utf-8")
    done = cmake_library(f"helia_rt_{backend}", project, build, log_file,
                         what=f"heliaRT ({backend})", defines=["-DCMAKE_BUILD_TYPE="], jobs=jobs,
                         toolchain=toolchain, cpu_flags=cpu_flags)
    return {**_collect(build, temp, backend, log_file, sources), **done.facts()}


def _collect(build: Path, temp: Path, backend: str, log_file: Path,
             sources: SourceSet) -> dict[str, list[str]]:
    """Copy the archives out of ``build`` (then dropped); include folders kept portable."""
    lib = temp / "lib"
    lib.mkdir()
    found = {p.name: p for p in build.rglob("*.a")}
    names = [f"lib{backend_target(backend)}.a"] + (["libcmsis-nn.a"] if backend in KERNEL_REPO
                                                   else [])
    for name in names:
        if name not in found:
            raise BuildError(f"the heliaRT build made no {name}", f"see {log_file}")
        shutil.copy2(found[name], lib / name)
    exported = interface(build, sources)
    shutil.rmtree(build)
    return {"archives": names, **exported}


def interface(build: Path, sources: SourceSet) -> dict[str, list[str]]:
    """The include folders (portable) and definitions the backend's target exports, as the
    configured tree in ``build`` wrote them (:data:`INTERFACE`)."""
    includes, defines = (build / "hpx_interface.txt").read_text(encoding="utf-8").splitlines()[:2]
    roots = source_roots(sources)
    return {"include_dirs": [portable(i, roots) for i in includes.split(";") if i],
            "defines": [d for d in defines.split(";") if d]}


def ensure_heliart(sources: SourceSet, backend: str, cpu_flags: Sequence[str], *,
                   root: Path | None = None, jobs: int = 2,
                   toolchain: Toolchain | None = None) -> HeliaRtLibrary:
    """The ``backend`` library from the cache, or built now (``jobs`` parallel compiles) with
    ``toolchain`` (default arm-none-eabi-gcc)."""
    key = library_key(sources, backend, cpu_flags, toolchain)

    def make(temp: Path, final: Path) -> dict[str, Any]:
        found = _build(sources, backend, cpu_flags, temp, final, jobs, toolchain)
        return {"backend": backend, "build_type": BUILD_TYPE, **found}

    done = cached_folder(f"helia_rt_{backend}", key, make, root=root)
    log.info("heliaRT library", backend=backend, key=key[:12], built=done.built,
             seconds=round(done.seconds, 1))
    manifest = done.manifest
    roots = source_roots(sources)
    return HeliaRtLibrary(
        backend=backend, key=key, folder=done.folder,
        archives=[done.folder / "lib" / n for n in manifest["archives"]],
        include_dirs=[Path(resolved(p, roots)) for p in manifest["include_dirs"]],
        defines=manifest["defines"], built=done.built, seconds=done.seconds,
        build=manifest if done.built else None)
