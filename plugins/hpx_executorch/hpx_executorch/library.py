"""The ExecuTorch runtime as prebuilt archives in a content-addressed cache folder.

The runtime depends on the provider, the ns-ops switch, the portable operators it registers, the
board's CPU flags, the toolchain and the source pins, never on the model's weights: two models
with the same operator set share one build. Built in a temporary folder beside its final place
and renamed into place only when every archive exists; a file lock per key makes concurrent runs
build it once. The archives, the generated headers the glue needs and a manifest are kept; the
build tree is dropped.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import structlog

from hpx_core.build import Toolchain
from hpx_core.contract import SourceSet
from hpx_core.enginelib import cached_folder, run_logged, toolchain_args, toolchain_identity
from hpx_core.errors import BuildError
from hpx_executorch.runtime_cmake import RuntimeOptions, arm_module_stub, runtime_cmakelists

log = structlog.get_logger()
RECIPE = 3  # 3: etdump and flatccrt (not position-independent), flatcc built from a copy
COMMON_FLAGS = ("-ffunction-sections", "-fdata-sections", "-fno-unwind-tables",
                "-fomit-frame-pointer", "-funsigned-char", "-g")
# Registration happens in static constructors: these archives are linked whole.
WHOLE_ARCHIVES = ("executorch", "cortex_m_ops_lib", "executorch_selected_kernels",
                  "cortex_m_ns_ops_lib")


def _paths(value: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(Path(v) for v in value)


@attrs.frozen
class RuntimeLibrary:
    """A built runtime: its archives in link order, include folders, and how it was had."""

    key: str
    folder: Path
    archives: tuple[Path, ...] = attrs.field(converter=_paths)
    include_dirs: tuple[Path, ...] = attrs.field(converter=_paths)
    built: bool
    seconds: float

    def cmake(self, target: str = "hpx_app") -> str:
        """A CMake fragment linking the archives into ``target`` (registrations kept whole)."""
        whole = [a for a in self.archives if a.stem.removeprefix("lib") in WHOLE_ARCHIVES]
        rest = [a for a in self.archives if a not in whole]
        items = ["-Wl,--whole-archive", *(a.as_posix() for a in whole), "-Wl,--no-whole-archive",
                 "-Wl,--start-group", *(a.as_posix() for a in rest), "-Wl,--end-group"]
        body = "\n".join(f'  "{item}"' for item in items)
        return f"target_link_libraries({target} PRIVATE\n{body}\n)\n"


def runtime_key(sources: SourceSet, options: RuntimeOptions, board: str,
                toolchain: Toolchain | None = None) -> str:
    doc = {
        "recipe": RECIPE, "options": attrs.asdict(options), "board": board,
        "toolchain": toolchain_identity(toolchain), "flags": COMMON_FLAGS,
        "provenance": sources.provenance,
        "pins": sorted((r.name, r.commit, r.path.as_posix()) for r in sources.repos),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()




def _stage_arm_module(temp: Path, sources: SourceSet) -> Path:
    module = temp / "arm-cmsis-nn"
    for rel, text in arm_module_stub(sources.path_of("CMSIS-NN"),
                                     sources.path_of("CMSIS_6")).items():
        path = module / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.startswith("external/"):
            path.symlink_to(text, target_is_directory=True)
        else:
            path.write_text(text, encoding="utf-8")
    return module


def _collect(build: Path, temp: Path, options: RuntimeOptions) -> list[Path]:
    """Copy the target archives into ``temp/lib`` in link order; all must exist."""
    lib = temp / "lib"
    lib.mkdir()
    found = {p.name: p for p in build.rglob("*.a")}
    archives = []
    for target in options.targets():
        name = f"lib{target}.a"
        if name not in found:
            raise BuildError(f"the runtime build made no {name}", f"see {temp / 'build.log'}")
        archives.append(Path(shutil.copy2(found[name], lib / name)))
    # The portable kernels' helpers live in their own archives (kernels_util_all_deps & co).
    for name, path in sorted(found.items()):
        if not (lib / name).exists() and name.startswith("libkernels_util"):
            archives.append(Path(shutil.copy2(path, lib / name)))
    shutil.copytree(build / "schema" / "include", temp / "include", dirs_exist_ok=True)
    return archives


def _build(sources: SourceSet, options: RuntimeOptions, temp: Path, jobs: int,
           toolchain: Toolchain | None) -> list[Path]:
    nsx = sources.path_of("nsx-executorch")
    arm = _stage_arm_module(temp, sources) if options.provider == "arm" else None
    ns = sources.path_of("ns-cmsis-nn") if options.provider == "ns" else None
    project = temp / "project"
    project.mkdir()
    flatcc = temp / "flatcc"  # flatcc writes into its source folder: give it this copy
    shutil.copytree(sources.path_of("executorch") / "third-party" / "flatcc", flatcc,
                    ignore=shutil.ignore_patterns(".git"))
    (project / "CMakeLists.txt").write_text(
        runtime_cmakelists(nsx, sources.path_of("CMSIS_6"), options, arm_module=arm, ns_root=ns,
                           flatcc_copy=flatcc, extra_flags=COMMON_FLAGS), encoding="utf-8")
    build, log_file = temp / "build", temp / "build.log"
    run_logged(["cmake", "-G", "Ninja", "-S", str(project), "-B", str(build),
          *toolchain_args(toolchain, options.cpu_flags, project), "-DCMAKE_BUILD_TYPE=Release",
          f"-DPython3_EXECUTABLE={sys.executable}"], log_file, "configuring the ExecuTorch runtime")
    run_logged(["cmake", "--build", str(build), "--parallel", str(jobs)], log_file,
         "building the ExecuTorch runtime")
    archives = _collect(build, temp, options)
    shutil.rmtree(build)
    shutil.rmtree(flatcc)
    return archives


def include_dirs(sources: SourceSet, folder: Path) -> tuple[Path, ...]:
    """What the glue compiles against: ExecuTorch's headers and the generated schema headers."""
    et = sources.path_of("executorch")
    return (et.parent, et / "runtime/core/portable_type/c10", folder / "include",
            et / "third-party/flatbuffers/include")


def ensure_runtime(sources: SourceSet, options: RuntimeOptions, board: str, *,
                   root: Path | None = None, jobs: int = 2,
                   toolchain: Toolchain | None = None) -> RuntimeLibrary:
    """The runtime for ``options`` from the cache, or built now (``jobs`` parallel compiles)
    with ``toolchain`` (default arm-none-eabi-gcc)."""
    key = runtime_key(sources, options, board, toolchain)

    def make(temp: Path, _final: Path) -> dict[str, Any]:
        archives = _build(sources, options, temp, jobs, toolchain)
        return {"options": attrs.asdict(options), "archives": [a.name for a in archives]}

    done = cached_folder(f"executorch_{options.provider}", key, make, root=root)
    log.info("executorch runtime", key=key[:12], built=done.built, seconds=round(done.seconds, 1))
    return RuntimeLibrary(key=key, folder=done.folder,
                          archives=[done.folder / "lib" / n for n in done.manifest["archives"]],
                          include_dirs=include_dirs(sources, done.folder), built=done.built,
                          seconds=done.seconds)
