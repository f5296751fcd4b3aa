"""The CMake toolchain file of a toolchain for one CPU, rendered from ``firmware_templates/cmake``.

Every build (the firmware project and every engine library) configures CMake with this file,
so the compiler, its target, the C/C++ runtime libraries and how they are linked are decided in
one place; the project decides only CPU flags, optimization and sources.

- ``arm-none-eabi-gcc``: ``arm-none-eabi-gcc.cmake`` as it is (newlib-nano through specs).
- ``clang``: clang + lld linking the GNU Arm toolchain's newlib-nano, libgcc and libstdc++. GCC
  itself is asked, for the board's CPU flags, where its headers, libraries and start files
  are; ``-fshort-enums`` makes clang's objects match the ABI those libraries were built with.
- ``atfe``: ATfE's clang, whose driver picks the multilib (picolibc, libc++, compiler-rt) from
  the CPU flags itself; ``-nostartfiles`` because hpx brings its own reset handler, and
  ``HPX_PICOLIBC`` so the project adds picolibc's thread-local storage (errno lives there).
"""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import attrs
import jinja2

from hpx_core.errors import ToolError
from hpx_core.firmware.render import write_if_changed
from hpx_core.firmware.templates import templates_root
from hpx_core.firmware.toolchain import GNU_PACKAGES, Toolchain

TOOLCHAIN_FILE = "toolchain.cmake"
GNU_LIBS = ("-lstdc++_nano", "-lsupc++_nano", "-lm", "-lc_nano", "-lnosys", "-lgcc")
CLANG_FLAGS = "-fshort-enums -nostdlibinc"  # the ABI of GCC-built libraries; only their headers
# hpx's reset handler starts the program, not ATfE's crt0; and the link picks the multilib
# variant without exceptions and RTTI, as every C++ file is compiled.
ATFE_LINK_FLAGS = "-nostartfiles -fno-exceptions -fno-rtti"


@attrs.frozen
class GnuRuntime:
    """Where the GNU Arm toolchain keeps, for one CPU, what a clang build links and includes."""

    c_includes: tuple[str, ...]
    cxx_includes: tuple[str, ...]
    lib_dirs: tuple[str, ...]
    start_files: tuple[str, ...]  # crti.o, crtbegin.o: before the objects
    end_files: tuple[str, ...]  # crtend.o, crtn.o: after the libraries


def _gcc(gcc: Path, args: Sequence[str]) -> str:
    hint = f"reinstall the GNU Arm toolchain (Debian: {GNU_PACKAGES})"
    try:
        done = subprocess.run([str(gcc), *args], capture_output=True, text=True, check=False,
                              stdin=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ToolError(f"{gcc.name} {' '.join(args)} did not run: {error}", hint) from None
    if done.returncode != 0:
        raise ToolError(f"{gcc.name} {' '.join(args)} failed: {done.stderr.strip()[:200]}", hint)
    return done.stdout + done.stderr


def _search_dirs(gcc: Path, cpu: Sequence[str], language: str) -> tuple[str, ...]:
    """GCC's ``#include <...>`` search list with newlib-nano, minus GCC's own builtin headers
    (clang has its own)."""
    text = _gcc(gcc, [*cpu, "--specs=nano.specs", "-x", language, "-E", "-Wp,-v", "-o",
                      os.devnull, os.devnull])
    lines = text.split("#include <...> search starts here:")[-1].splitlines()
    builtin = Path(_gcc(gcc, ["-print-file-name=include"]).strip()).resolve().parent
    found = []
    for line in lines:
        if line.startswith("End of search list"):
            break
        folder = Path(line.strip()).resolve()
        if line.startswith(" ") and not folder.is_relative_to(builtin):
            found.append(folder.as_posix())
    return tuple(found)


@functools.cache
def gnu_runtime(gcc: Path, cpu_flags: tuple[str, ...]) -> GnuRuntime:
    """Ask ``gcc`` where newlib-nano, libgcc, libstdc++ and the start files are for this CPU."""
    def file_of(name: str) -> Path:
        return Path(_gcc(gcc, [*cpu_flags, f"-print-file-name={name}"]).strip())

    libc = file_of("libc_nano.a")
    if not libc.is_absolute():  # GCC answers the bare name when it has no such file
        raise ToolError("the GNU Arm toolchain has no newlib-nano for "
                        f"{' '.join(cpu_flags)}", "install libnewlib-arm-none-eabi")
    libgcc = Path(_gcc(gcc, [*cpu_flags, "-print-libgcc-file-name"]).strip())
    crt = [file_of(name).resolve().as_posix() for name in ("crti.o", "crtbegin.o", "crtend.o",
                                                          "crtn.o")]
    return GnuRuntime(
        c_includes=_search_dirs(gcc, cpu_flags, "c"),
        cxx_includes=_search_dirs(gcc, cpu_flags, "c++"),
        lib_dirs=(libc.resolve().parent.as_posix(), libgcc.resolve().parent.as_posix()),
        start_files=(crt[0], crt[1]),
        end_files=(crt[2], crt[3]),
    )


def _isystem(folders: Sequence[str]) -> str:
    return " ".join(f"-isystem {f}" for f in folders)


def _clang_values(toolchain: Toolchain, cpu_flags: tuple[str, ...]) -> dict[str, object]:
    gcc = toolchain.gnu_libraries
    assert gcc is not None
    runtime = gnu_runtime(gcc, cpu_flags)
    common = CLANG_FLAGS
    libs = ["-Wl,--start-group", *GNU_LIBS, "-Wl,--end-group", *runtime.end_files]
    return {
        "c_flags": f"{common} {_isystem(runtime.c_includes)}",
        "cxx_flags": f"{common} {_isystem(runtime.cxx_includes)}",
        "link_flags": " ".join([f"--ld-path={toolchain.linker}", "-nostdlib",
                                *(f"-L{d}" for d in runtime.lib_dirs), *runtime.start_files]),
        "libraries": " ".join(libs),
        "ar": gcc.with_name("arm-none-eabi-ar"),
        "ranlib": gcc.with_name("arm-none-eabi-ranlib"),
        "picolibc": False,
    }


def _atfe_values(toolchain: Toolchain) -> dict[str, object]:
    assert toolchain.root is not None
    return {
        "c_flags": "", "cxx_flags": "",
        "link_flags": f"--ld-path={toolchain.linker} {ATFE_LINK_FLAGS}",
        "libraries": "",
        "ar": toolchain.root / "bin" / "llvm-ar",
        "ranlib": toolchain.root / "bin" / "llvm-ranlib",
        "picolibc": True,
    }


def recipe_digest() -> str:
    """A digest of how the LLVM recipes build (template and flags): part of the identity of
    libraries they build, so a changed recipe never reuses an old cache entry."""
    text = (templates_root() / "cmake" / "llvm.cmake.j2").read_text(encoding="utf-8")
    recipe = "\n".join([text, CLANG_FLAGS, ATFE_LINK_FLAGS, *GNU_LIBS])
    return hashlib.sha256(recipe.encode()).hexdigest()[:16]


def recipe_identity(toolchain: Toolchain) -> str:
    """What names ``toolchain`` for anything built with it: for GCC its first ``--version``
    line (as it always was: existing GCC builds stay valid), for the LLVM recipes also the
    compiler's path, the C library and the recipe, all of which the toolchain file holds."""
    if toolchain.family == "gcc":
        return toolchain.identity
    return f"{toolchain.identity}; recipe {recipe_digest()}"


def toolchain_file_text(toolchain: Toolchain, cpu_flags: Sequence[str]) -> str:
    """The toolchain file for ``toolchain`` building for ``cpu_flags``."""
    root = templates_root() / "cmake"
    toolchain.require()
    if toolchain.family == "gcc":
        return (root / "arm-none-eabi-gcc.cmake").read_text(encoding="utf-8")
    cpu = tuple(cpu_flags)
    values = _atfe_values(toolchain) if toolchain.name == "atfe" else _clang_values(toolchain,
                                                                                    cpu)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(root)),
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             autoescape=False)
    return env.get_template("llvm.cmake.j2").render(
        name=toolchain.name, version=toolchain.version, cpu_flags=" ".join(cpu),
        cc=toolchain.compiler, cxx=toolchain.cxx_compiler, **values)


def write_toolchain_file(toolchain: Toolchain, cpu_flags: Sequence[str], folder: Path) -> Path:
    """Render the toolchain file into ``folder`` (rewritten only when it changes)."""
    path = folder / TOOLCHAIN_FILE
    write_if_changed(path, toolchain_file_text(toolchain, cpu_flags).encode("utf-8"))
    return path
