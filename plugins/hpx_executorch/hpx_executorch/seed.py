"""The runtime's CMake build tree, kept in the cache beside the runtime core it built.

ExecuTorch's portable operators are registered per program: a program with another set of them
needs another ``portable_kernels`` and ``executorch_selected_kernels``. Everything else (the
runtime core, the provider's kernels, the host ``flatc`` that generates the schema headers) is
the same, so the tree that built the core is kept ("the seed"): a new operator set rewrites its
top-level CMakeLists and Ninja recompiles only the operator files and the registration.

One tree per core key, at a fixed place under the cache (``engines/<core>.seed``), used under its
own lock. A tree configured in another folder (a cache that was moved) is rebuilt, since CMake
trees cannot move; the libraries it made stay valid.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from filelock import FileLock

from hpx_core.sdk import SourceSet
from hpx_core.sdk.enginelib import LibraryBuild, cmake_library
from hpx_core.sdk.firmware import Toolchain
from hpx_executorch.host_tools import matching_flatc
from hpx_executorch.runtime_cmake import RuntimeOptions, arm_module_stub, runtime_cmakelists

LOG = "build.log"


def seed_folder(engines: Path, core_name: str) -> Path:
    return engines / f"{core_name}.seed"


def seed_lock(seed: Path) -> FileLock:
    return FileLock(str(seed.with_name(f".{seed.name}.lock")))


def _stage_arm_module(seed: Path, sources: SourceSet) -> Path:
    module = seed / "arm-cmsis-nn"
    shutil.rmtree(module, ignore_errors=True)
    for rel, text in arm_module_stub(sources.path_of("CMSIS-NN"),
                                     sources.path_of("CMSIS_6")).items():
        path = module / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.startswith("external/"):
            path.symlink_to(text, target_is_directory=True)
        else:
            path.write_text(text, encoding="utf-8")
    return module


def _configured_here(build: Path) -> bool:
    """The tree's CMake cache was made in this very folder (not in a moved cache)."""
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return False
    for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("CMAKE_CACHEFILE_DIR:INTERNAL="):
            return Path(line.split("=", 1)[1]) == build
    return False


def _flatcc_copy(seed: Path, sources: SourceSet) -> Path:
    """flatcc writes into its source folder: the seed builds it from a copy of its own."""
    flatcc = seed / "flatcc"
    if not flatcc.is_dir():
        shutil.copytree(sources.path_of("executorch") / "third-party" / "flatcc", flatcc,
                        ignore=shutil.ignore_patterns(".git"))
    return flatcc


def seed_project(seed: Path, sources: SourceSet, options: RuntimeOptions,
                 flags: Sequence[str], helpers: Sequence[str] | None = None) -> str:
    """The seed's top-level CMakeLists for ``options`` (``helpers``: the portable kernels'
    helper files to compile, None for all), with what it needs staged in the seed (the arm
    provider's module stand-in, flatcc's copy)."""
    arm = _stage_arm_module(seed, sources) if options.provider == "arm" else None
    ns = sources.path_of("ns-cmsis-nn") if options.provider == "ns" else None
    return runtime_cmakelists(sources.path_of("nsx-executorch"), sources.path_of("CMSIS_6"),
                              options, arm_module=arm, ns_root=ns,
                              flatcc_copy=_flatcc_copy(seed, sources), extra_flags=flags,
                              system_flatc=matching_flatc(sources),
                              portable_helpers=helpers)


def write_project(seed: Path, sources: SourceSet, options: RuntimeOptions,
                  flags: Sequence[str], helpers: Sequence[str] | None = None) -> None:
    """The seed's project for ``options`` (see :func:`seed_project`), written only when its
    text changed: an unchanged project is not configured again."""
    lists = seed / "project" / "CMakeLists.txt"
    lists.parent.mkdir(parents=True, exist_ok=True)
    text = seed_project(seed, sources, options, flags, helpers)
    if not lists.is_file() or lists.read_text(encoding="utf-8") != text:
        lists.write_text(text, encoding="utf-8")


def build_in_seed(seed: Path, sources: SourceSet, options: RuntimeOptions,
                  flags: Sequence[str], targets: Sequence[str], jobs: int,
                  toolchain: Toolchain | None = None,
                  helpers: Sequence[str] | None = None) -> LibraryBuild:
    """Build ``targets`` for ``options`` with ``toolchain`` (default arm-none-eabi-gcc) in the
    seed (call holding :func:`seed_lock`); ``helpers``: see :func:`seed_project`."""
    build, project = seed / "build", seed / "project"
    if not _configured_here(build):
        shutil.rmtree(seed, ignore_errors=True)
    write_project(seed, sources, options, flags, helpers)
    (seed / LOG).write_text("", encoding="utf-8")
    return cmake_library(f"executorch_{options.provider}", project, build, seed / LOG,
                         what="the ExecuTorch runtime", targets=targets, jobs=jobs,
                         defines=["-DCMAKE_BUILD_TYPE=Release",
                                  f"-DPython3_EXECUTABLE={sys.executable}"],
                         toolchain=toolchain, cpu_flags=options.cpu_flags)


def copy_archives(build: Path, names: Sequence[str], into: Path) -> list[str]:
    """Copy the named archives (``libX.a``) from the tree into ``into``; the names found."""
    into.mkdir(parents=True, exist_ok=True)
    found = {p.name: p for p in build.rglob("*.a")}
    copied = []
    for name in names:
        if name in found:
            shutil.copy2(found[name], into / name)
            copied.append(name)
    return copied


def helper_archives(build: Path, prefixes: Sequence[str]) -> list[str]:
    """Archives the tree made whose names start with one of ``prefixes`` (sorted)."""
    return sorted({p.name for p in build.rglob("*.a") if p.name.startswith(tuple(prefixes))})
