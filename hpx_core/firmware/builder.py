"""Configure and build a rendered project with CMake + Ninja.

Ninja is always asked to build: when the inputs are unchanged it answers "no work to do" and
runs no compiler, which the result records (``compiled == 0``) next to the fingerprint check.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from hpx_core import head_start
from hpx_core.contract import SourceSet
from hpx_core.errors import BuildError, ToolError
from hpx_core.firmware.elfinfo import SectionSizes, section_sizes
from hpx_core.firmware.fingerprint import build_fingerprint, read_stamp
from hpx_core.firmware.launcher import (
    STATS_LOG,
    CacheStats,
    CompilerCache,
    build_env,
    cmake_args,
    compiler_cache,
    read_stats,
)
from hpx_core.firmware.render import Project
from hpx_core.firmware.stoppable import run_captured
from hpx_core.firmware.toolchain import Toolchain
from hpx_core.firmware.toolchain_file import recipe_identity, write_toolchain_file
from hpx_core.log import get_logger

log = get_logger(__name__)

STAMP = "hpx-build.json"
_COMPILE_LINE = re.compile(r"^\[\d+/\d+\] Building (C|CXX|ASM) object ", re.MULTILINE)
_OVERFLOWED = re.compile(r"region [`']([\w.]+)' overflowed by (\d+) bytes")
# lld names each section that crosses the region's end, with the region's overflow so far.
_NO_FIT = re.compile(r"will not fit in region [`']([\w.]+)'(?:: overflowed by (\d+) bytes)?")


class RegionOverflowError(BuildError):
    """The linker found a memory region too small: ``excess`` bytes (None: not said)."""

    def __init__(self, region: str, excess: int | None, log_file: Path) -> None:
        by = f" by {excess:,} bytes" if excess is not None else ""
        super().__init__(f"the firmware overflows memory region {region}{by}",
                         f"the full log is in {log_file}")
        self.region = region
        self.excess = excess


def _overflow(output: str, log_file: Path) -> RegionOverflowError | None:
    found = _OVERFLOWED.search(output)
    if found:
        return RegionOverflowError(found.group(1), int(found.group(2)), log_file)
    unfit = _NO_FIT.findall(output)
    if not unfit:
        return None
    region = unfit[0][0]
    counts = [int(by) for name, by in unfit if name == region and by]
    return RegionOverflowError(region, max(counts) if counts else None, log_file)


@attrs.frozen
class BuildResult:
    """What a build produced and how much work it took."""

    elf: Path
    fingerprint: str
    toolchain: str
    toolchain_version: str
    sizes: SectionSizes
    configured: bool  # CMake configure ran
    compiled: int  # compiler invocations Ninja ran
    no_work: bool  # Ninja said "no work to do"
    fingerprint_unchanged: bool  # same inputs as the last successful build
    seconds: float
    log: Path
    compiler_cache: str = ""  # the compiler cache's version and path ("": built without one)
    cache_stats: CacheStats | None = None  # its hits and misses in this build


def _tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise ToolError(
            f"{name} is not on PATH",
            f"install {name} (Debian: apt-get install "
            f"{'ninja-build' if name == 'ninja' else name})",
        )
    return found


def _run(argv: Sequence[str], log_file: Path, what: str,
         env: Mapping[str, str] | None = None) -> str:
    done = run_captured(argv, env)
    output = done.stdout + done.stderr
    with log_file.open("a", encoding="utf-8") as handle:
        handle.write(f"$ {' '.join(argv)}\n{output}\n")
    if done.returncode != 0:
        overflow = _overflow(output, log_file)
        if overflow is not None:
            raise overflow
        errors = [ln for ln in output.splitlines() if "error" in ln.lower()]
        first = errors[0].strip() if errors else f"exit status {done.returncode}"
        raise BuildError(f"{what} failed: {first}", f"the full log is in {log_file}")
    return output


def _configure(project: Project, toolchain: Toolchain, log_file: Path,
               cache: CompilerCache | None) -> None:
    # The toolchain file is rendered for this toolchain and the board's CPU beside the project.
    chain_file = write_toolchain_file(toolchain, project.board.cpu_flags, project.root)
    # The GCC file finds its compilers in this folder; the LLVM ones name theirs in full.
    prefix = ([f"-DHPX_TOOLCHAIN_PREFIX={toolchain.compiler.parent}"]
              if toolchain.family == "gcc" and toolchain.compiler else [])
    _run(
        [
            _tool("cmake"),
            "-G",
            "Ninja",
            "-S",
            str(project.source_dir),
            "-B",
            str(project.build_dir),
            f"-DCMAKE_TOOLCHAIN_FILE={chain_file}",
            *prefix,
            f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}",
            "-DCMAKE_BUILD_TYPE=Release",
            *cmake_args(cache),
        ],
        log_file,
        "CMake configure",
        build_env(cache),
    )


def build_project(
    project: Project,
    toolchain: Toolchain,
    *,
    config: Mapping[str, object] | None = None,
    model_sha256: str | None = None,
    sources: SourceSet | None = None,
    jobs: int = 2,
) -> BuildResult:
    """Build ``project`` into ``project.build_dir``; an unchanged project compiles nothing."""
    toolchain.require()
    started = time.perf_counter()
    fingerprint = build_fingerprint(
        project, toolchain, config=config, model_sha256=model_sha256, sources=sources
    )
    stamp_path = project.root / STAMP
    previous = read_stamp(stamp_path)
    unchanged = previous.get("fingerprint") == fingerprint
    if not unchanged:
        # This build changes the firmware: a run started ahead on the old ELF could not be
        # taken over, and would take a core from the compiler meanwhile.
        head_start.cancel()
    cache = compiler_cache()
    launcher = cache.describe() if cache else ""
    # Stamps written before the identity was kept have the version (a GCC's identity).
    identity = recipe_identity(toolchain)
    kept = previous.get("toolchain_identity", previous.get("toolchain_version"))
    switched = (previous.get("toolchain"), kept, previous.get("launcher", "")) != (
        toolchain.name, identity, launcher)
    if switched and project.build_dir.exists():
        # CMake cannot switch compilers, their libraries or launchers in place, and reads the
        # toolchain file only when it configures a new build folder.
        shutil.rmtree(project.build_dir)
    project.build_dir.mkdir(parents=True, exist_ok=True)
    log_file = project.root / "build.log"
    log_file.write_text("", encoding="utf-8")
    configured = not (project.build_dir / "build.ninja").is_file()
    if configured:
        _configure(project, toolchain, log_file, cache)
    stats_log = project.root / STATS_LOG
    stats_log.unlink(missing_ok=True)
    output = _run(
        [_tool("ninja"), "-C", str(project.build_dir), f"-j{jobs}"], log_file, "firmware build",
        build_env(cache, stats_log, base_dir=project.root),
    )
    compiled = len(_COMPILE_LINE.findall(output))
    sizes = section_sizes(project.elf)
    result = BuildResult(
        elf=project.elf,
        fingerprint=fingerprint,
        toolchain=toolchain.name,
        toolchain_version=toolchain.version,
        sizes=sizes,
        configured=configured,
        compiled=compiled,
        no_work="ninja: no work to do." in output,
        fingerprint_unchanged=unchanged,
        seconds=time.perf_counter() - started,
        log=log_file,
        compiler_cache=launcher,
        cache_stats=read_stats(stats_log) if cache else None,
    )
    stats_log.unlink(missing_ok=True)
    _write_stamp(stamp_path, result, identity)
    log.info("build", elf=str(project.elf), compiled=compiled, seconds=round(result.seconds, 3))
    return result


def _write_stamp(path: Path, result: BuildResult, identity: str) -> None:
    data = {
        "fingerprint": result.fingerprint,
        "toolchain": result.toolchain,
        "toolchain_version": result.toolchain_version,
        "toolchain_identity": identity,
        "launcher": result.compiler_cache,
        "elf": str(result.elf),
        "sizes": attrs.asdict(result.sizes),
    }
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def build_info(result: BuildResult) -> dict[str, object]:
    """The build facts a result bundle keeps (JSON-ready)."""
    return {
        "toolchain": result.toolchain,
        "toolchain_version": result.toolchain_version,
        "fingerprint": result.fingerprint,
        "sizes": {"text": result.sizes.text, "data": result.sizes.data, "bss": result.sizes.bss},
        "sections": result.sizes.sections,
        "compiled": result.compiled,
        "compiler_cache": None if result.cache_stats is None else {
            "tool": result.compiler_cache, **result.cache_stats.as_dict()},
        "seconds": round(result.seconds, 3),
    }
