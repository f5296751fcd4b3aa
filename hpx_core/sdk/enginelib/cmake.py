"""Configure and build one engine library's CMake project: the way every engine's library is
built (a file list the engine gives, or the library's own CMake project).

The compiler cache goes in front of every compile when there is one
(:mod:`hpx_core.firmware.launcher`); Ninja's status lines feed the progress
(:mod:`hpx_core.firmware.progress`); the whole output goes to the build's log.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

import attrs

from hpx_core.errors import BuildError, ToolError
from hpx_core.firmware.launcher import (
    STATS_LOG,
    CacheStats,
    build_env,
    cmake_args,
    compiler_cache,
    read_stats,
)
from hpx_core.firmware.progress import tracker
from hpx_core.firmware.stoppable import stoppable
from hpx_core.firmware.toolchain import Toolchain, get_toolchain
from hpx_core.firmware.toolchain_file import write_toolchain_file

COMPILE_LINE = ("Building C object", "Building CXX object", "Building ASM object")


@attrs.frozen
class LibraryBuild:
    """What building a library took: compile units, and the compiler cache's hits and misses
    (None: built without one)."""

    compiled: int
    cache: CacheStats | None
    compiler_cache: str = ""  # the cache's version and path, when there was one
    apart: int = 0  # of ``compiled``, the files of the targets counted apart

    def facts(self) -> dict[str, object]:
        """For a library's manifest and a bundle's build facts."""
        cache = None if self.cache is None else {"tool": self.compiler_cache,
                                                 **self.cache.as_dict()}
        return {"compiled": self.compiled, "compiler_cache": cache}


def toolchain_args(toolchain: Toolchain | None, cpu_flags: Sequence[str], folder: Path
                   ) -> list[str]:
    """CMake arguments selecting ``toolchain`` (default arm-none-eabi-gcc) for ``cpu_flags``:
    its toolchain file, rendered into ``folder``."""
    chosen = toolchain or get_toolchain()
    return [f"-DCMAKE_TOOLCHAIN_FILE={write_toolchain_file(chosen, cpu_flags, folder)}"]


def run_logged(args: Sequence[str], log_file: Path, what: str, *,
               env: Mapping[str, str] | None = None,
               on_line: Callable[[str], None] | None = None) -> None:
    """Run a build tool, appending its output to ``log_file`` (each line also to ``on_line``);
    a failure is a BuildError."""
    args = list(args)
    with log_file.open("a", encoding="utf-8") as out:
        out.write("$ " + " ".join(args) + "\n")
        out.flush()
        try:
            code = _stream(args, out, env, on_line)
        except FileNotFoundError as exc:
            raise ToolError(f"{args[0]} is not installed", "install cmake and ninja") from exc
    if code != 0:
        tail = log_file.read_text(encoding="utf-8", errors="replace").splitlines()[-30:]
        errors = [line for line in tail if "error" in line.lower()] or tail[-3:]
        raise BuildError(
            f"{what} failed: {errors[0].strip() if errors else 'see log'}",
            f"full log: {log_file}",
        )


def _stream(args: Sequence[str], out: TextIO, env: Mapping[str, str] | None,
            on_line: Callable[[str], None] | None) -> int:
    """Run a tool (stopped with its children when hpx is), each line to ``out`` and
    ``on_line``; its exit status."""
    with stoppable(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                   errors="replace", env=env) as process:
        assert process.stdout is not None
        for line in process.stdout:
            out.write(line)
            if on_line is not None:
                on_line(line)
        return process.wait()


def configure_library(project: Path, build: Path, log_file: Path, *, what: str,
                      defines: Sequence[str] = (), toolchain: Toolchain | None = None,
                      cpu_flags: Sequence[str] = ()) -> None:
    """Configure ``project`` into ``build`` with ``toolchain``'s file for ``cpu_flags`` and the
    compiler cache as launcher, unless that was done before (Ninja then reconfigures by itself
    when the project changed)."""
    if not (build / "build.ninja").is_file():
        cache = compiler_cache()
        run_logged(["cmake", "-G", "Ninja", "-S", str(project), "-B", str(build),
                    *toolchain_args(toolchain, cpu_flags, build.parent), *defines,
                    *cmake_args(cache)],
                   log_file, f"configuring {what}", env=build_env(cache))


def cmake_library(
    name: str,
    project: Path,
    build: Path,
    log_file: Path,
    *,
    what: str,
    defines: Sequence[str] = (),
    targets: Sequence[str] = (),
    jobs: int = 2,
    toolchain: Toolchain | None = None,
    cpu_flags: Sequence[str] = (),
    apart: Sequence[str] = (),
    precompiled: bool = False,
) -> LibraryBuild:
    """Configure ``project`` into ``build`` with ``toolchain``'s file for ``cpu_flags`` (unless
    that was done before: Ninja then reconfigures by itself when the project changed) and build
    it, counting the files of the targets ``apart`` apart (``precompiled``: some units use a
    precompiled header, which a compiler cache is told to accept)."""
    cache = compiler_cache()
    stats_log = log_file.with_name(STATS_LOG)
    stats_log.unlink(missing_ok=True)
    configure_library(project, build, log_file, what=what, defines=defines,
                      toolchain=toolchain, cpu_flags=cpu_flags)
    compiled = separate = 0
    progress = tracker(name)
    folders = tuple(f"/{target}.dir/" for target in apart)

    def seen(line: str) -> None:
        nonlocal compiled, separate
        if any(marker in line for marker in COMPILE_LINE):
            compiled += 1
            separate += any(folder in line for folder in folders)
        progress(line)

    chosen = ["--target", *targets] if targets else []
    run_logged(["cmake", "--build", str(build), "--parallel", str(jobs), *chosen], log_file,
               f"building {what}", env=build_env(cache, stats_log, precompiled=precompiled,
                                                      library=True),
               on_line=seen)
    stats = read_stats(stats_log) if cache is not None else None
    stats_log.unlink(missing_ok=True)
    return LibraryBuild(compiled, stats, cache.describe() if cache else "", separate)
