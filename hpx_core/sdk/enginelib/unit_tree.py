"""A library's CMake project configured whole, then built one object at a time.

Configuring the project a whole library is built from (a file list, or the library's own CMake)
says which objects each archive target holds, in archive order (``$<TARGET_OBJECTS>``), and which
source each object is compiled from (``compile_commands.json``). Ninja then builds any of those
objects alone with exactly the command the whole library's build would run: the units a program
needs are the whole library's own objects, compiled with the same flags.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path

import attrs

from hpx_core.errors import BuildError
from hpx_core.firmware.toolchain import Toolchain
from hpx_core.sdk.enginelib.cmake import LibraryBuild, cmake_library, configure_library
from hpx_core.sdk.enginelib.include_graph import normal

LISTS = "hpx_units"  # the folder of the build tree where each target's objects are listed


@attrs.frozen
class Unit:
    """One object of an archive: its source and its path in the build tree (Ninja's name)."""

    source: str
    object: str


def _units(value: Iterable[Unit]) -> tuple[Unit, ...]:
    return tuple(value)


@attrs.frozen
class TargetUnits:
    """An archive target's objects, in the order its archive holds them."""

    target: str
    units: tuple[Unit, ...] = attrs.field(converter=_units)


def listing_cmake(targets: Sequence[str]) -> str:
    """CMake lines writing each target's objects, in archive order, into the build tree."""
    return "".join(
        f'file(GENERATE OUTPUT "${{CMAKE_BINARY_DIR}}/{LISTS}/{target}.txt"\n'
        f'  CONTENT "$<JOIN:$<TARGET_OBJECTS:{target}>,\\n>\\n")\n'
        for target in targets)


def configure(name: str, project: Path, build: Path, log_file: Path, *,
              defines: Sequence[str], toolchain: Toolchain | None,
              cpu_flags: Sequence[str]) -> None:
    """Configure ``project`` into ``build`` (compile commands exported), building nothing."""
    configure_library(project, build, log_file, what=f"the {name} library",
                      defines=[*defines, "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                      toolchain=toolchain, cpu_flags=cpu_flags)


def read_listing(build: Path, targets: Sequence[str]) -> tuple[TargetUnits, ...]:
    """Each target's units, from a configured tree."""
    sources = _sources_by_object(build)
    listing = []
    for target in targets:
        path = build / LISTS / f"{target}.txt"
        objects = [normal(line) for line in path.read_text(encoding="utf-8").split("\n") if line]
        missing = [o for o in objects if o not in sources]
        if missing:
            raise BuildError(f"the {target} library's object {missing[0].name} has no compile "
                             "command", f"see {build / 'compile_commands.json'}")
        listing.append(TargetUnits(target, [
            Unit(sources[o].as_posix(), o.relative_to(build).as_posix()) for o in objects]))
    return tuple(listing)


def _entries(build: Path) -> list[tuple[Path, Path, list[str]]]:
    """``(directory, source, arguments)`` of each compile in a configured tree."""
    return [(Path(e["directory"]), normal(Path(e["directory"]) / e["file"]),
             e.get("arguments") or shlex.split(e["command"]))
            for e in json.loads((build / "compile_commands.json").read_text(encoding="utf-8"))]


def compile_commands(build: Path) -> dict[str, str]:
    """Each source's compile command in a configured tree (sources as the listing names them)."""
    return {source.as_posix(): shlex.join(args) for _, source, args in _entries(build)}


def _sources_by_object(build: Path) -> dict[Path, Path]:
    return {normal(folder / args[args.index("-o") + 1]): source
            for folder, source, args in _entries(build) if "-o" in args}


def build_objects(name: str, project: Path, build: Path, log_file: Path,
                  objects: Sequence[str], *, jobs: int, toolchain: Toolchain | None,
                  cpu_flags: Sequence[str], also: Sequence[str] = (),
                  precompiled: bool = False) -> LibraryBuild:
    """Build the ``objects`` (paths in the tree) of a configured tree and the targets ``also``
    (their files counted apart), and nothing else (``precompiled``: some use a precompiled
    header)."""
    return cmake_library(name, project, build, log_file, what=f"the {name} library",
                         targets=[*objects, *also], jobs=jobs, toolchain=toolchain,
                         cpu_flags=cpu_flags, apart=also, precompiled=precompiled)


def configured_in(build: Path) -> bool:
    """``build`` holds no tree, or one CMake configured in this very folder (not in a folder
    it was moved from)."""
    cache = build / "CMakeCache.txt"
    if not cache.is_file():
        return True
    for line in cache.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("CMAKE_CACHEFILE_DIR:INTERNAL="):
            return Path(line.split("=", 1)[1]) == build
    return False


def archiver(build: Path) -> str:
    """The archiver the configured tree uses (``CMAKE_AR``)."""
    for line in (build / "CMakeCache.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("CMAKE_AR:"):
            return line.split("=", 1)[1]
    raise BuildError(f"the build tree {build} names no archiver (CMAKE_AR)",
                     "install the toolchain's binutils (arm-none-eabi-ar or llvm-ar)")
