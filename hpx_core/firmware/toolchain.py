"""Find the Arm toolchains hpx can build with, and say why one is not available.

Three recipes build firmware: ``arm-none-eabi-gcc`` (the default, Debian's gcc-arm-none-eabi),
``clang`` (a system clang + lld; the C/C++ libraries are the GNU Arm toolchain's newlib-nano,
libgcc and libstdc++, so both families link the same libraries) and ``atfe`` (Arm Toolchain for
Embedded: clang + lld with its own multilib, picolibc and libc++, found through ``ATFE_ROOT`` or
on PATH). ``armclang`` is detected and reported as not supported. A toolchain that is not there,
is incomplete or is older than the floor hpx was validated with is reported with the reason and
what to install, never guessed.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

import attrs

from hpx_core.errors import ToolError
from hpx_core.suggest import did_you_mean
from hpx_core.tool_version import version_line

Family = Literal["gcc", "llvm", "none"]
DEFAULT_TOOLCHAIN = "arm-none-eabi-gcc"  # what a config that names none builds with

LLVM_FLOOR = (19, 1)
"""The oldest LLVM release the clang and ATfE recipes were validated with (Debian bookworm's
clang-19). Older ones differ where hpx depends on them: clang 14 rejects the MVE assembler
extension names and defaults to strict alignment on bare metal."""

GNU_PACKAGES = "gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib"
CLANG_PACKAGES = "clang-19 lld-19"
ATFE_HINT = (
    "download Arm Toolchain for Embedded (19.1 or newer) and set ATFE_ROOT to the folder that "
    "holds its bin/ and lib/clang-runtimes/"
)
ARMCLANG_REASON = (
    "not supported: hpx has no armclang recipe (Arm Compiler 6 links with armlink and scatter "
    "files, not the GNU linker scripts every hpx board uses)"
)


@attrs.frozen
class Toolchain:
    """A toolchain as detected: its compilers, the version they report, and why not if not.

    ``version`` is the compiler's first ``--version`` line; ``identity`` is what names the
    toolchain in build fingerprints and engine-library keys (for GCC the version line alone, as
    it always was, so existing GCC cache entries stay valid).
    """

    name: str
    available: bool
    compiler: Path | None = None
    version: str = ""
    reason: str = ""
    family: Family = "none"
    cxx_compiler: Path | None = None
    linker: Path | None = None
    root: Path | None = None
    hint: str = ""
    gnu_libraries: Path | None = None  # clang: the arm-none-eabi-gcc whose libraries it links

    @property
    def identity(self) -> str:
        if self.family == "gcc":
            return self.version
        libraries = f"; libraries of {_version_line(self.gnu_libraries)}" if (
            self.gnu_libraries) else ""
        return f"{self.name}: {self.version} ({self.compiler}){libraries}"

    def require(self) -> Toolchain:
        """This toolchain, or a ToolError that says why it cannot be used and what to install."""
        if not self.available:
            raise ToolError(
                f"toolchain {self.name} is not available: {self.reason}",
                self.hint or "use --toolchain arm-none-eabi-gcc (Debian: gcc-arm-none-eabi)",
            )
        return self


def _version_line(compiler: Path) -> str:
    return version_line(compiler) or "unknown"


def llvm_release(version_line: str) -> tuple[int, int] | None:
    """``(major, minor)`` from a clang ``--version`` line, or None when it names none."""
    found = re.search(r"clang version (\d+)\.(\d+)", version_line)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _below_floor(version_line: str) -> str:
    """Why ``version_line`` is too old (or unreadable), or an empty string when it is fine."""
    release = llvm_release(version_line)
    floor = ".".join(map(str, LLVM_FLOOR))
    if release is None:
        return f"cannot read an LLVM version from {version_line!r} (hpx needs {floor} or newer)"
    if release < LLVM_FLOOR:
        return (f"clang {release[0]}.{release[1]} is older than {floor}, the oldest LLVM hpx "
                "supports")
    return ""


def _which(name: str, env: Mapping[str, str]) -> Path | None:
    found = shutil.which(name, path=env.get("PATH"))
    return Path(found) if found else None


def _detect_gcc(env: Mapping[str, str]) -> Toolchain:
    name, hint = "arm-none-eabi-gcc", f"install the GNU Arm toolchain (Debian: {GNU_PACKAGES})"
    compiler = _which(name, env)
    if compiler is None:
        return Toolchain(name, False, reason="arm-none-eabi-gcc is not on PATH", hint=hint)
    cxx = compiler.with_name("arm-none-eabi-g++")
    return Toolchain(name, True, compiler, _version_line(compiler), family="gcc",
                     cxx_compiler=cxx if cxx.is_file() else None, hint=hint)


def _versioned_clangs(env: Mapping[str, str]) -> list[Path]:
    """``clang-NN`` executables on PATH, newest first."""
    found: dict[int, Path] = {}
    for folder in reversed(env.get("PATH", "").split(os.pathsep)):
        for item in Path(folder).glob("clang-[0-9]*") if folder else ():
            if re.fullmatch(r"clang-\d+", item.name) and os.access(item, os.X_OK):
                found[int(item.name.split("-")[1])] = item
    return [found[k] for k in sorted(found, reverse=True)]


def _find_clang(env: Mapping[str, str]) -> Path | None:
    chosen = env.get("HPX_CLANG", "")
    if chosen:
        return Path(chosen) if os.sep in chosen else _which(chosen, env)
    plain = _which("clang", env)
    return plain or next(iter(_versioned_clangs(env)), None)


def _sibling(compiler: Path, tool: str) -> Path:
    """``clang++-19`` beside ``clang-19``, ``clang++`` beside ``clang``."""
    return compiler.with_name(compiler.name.replace("clang", tool, 1))


def _find_lld(compiler: Path, release: tuple[int, int] | None, env: Mapping[str, str]
              ) -> Path | None:
    beside = compiler.resolve().parent / "ld.lld"
    if beside.is_file():
        return beside
    versioned = _which(f"ld.lld-{release[0]}", env) if release else None
    return versioned or _which("ld.lld", env)


def _detect_clang(env: Mapping[str, str]) -> Toolchain:
    name = "clang"
    hint = (f"install clang and lld {LLVM_FLOOR[0]} or newer with the GNU Arm toolchain's "
            f"libraries (Debian: apt-get install --no-install-recommends {CLANG_PACKAGES} "
            f"{GNU_PACKAGES}), or point HPX_CLANG at such a clang")
    compiler = _find_clang(env)
    if compiler is None or not compiler.is_file():
        what = env.get("HPX_CLANG") or "clang"
        return Toolchain(name, False, reason=f"{what} is not on PATH", hint=hint)
    version = _version_line(compiler)
    base = Toolchain(name, False, compiler, version, family="llvm", hint=hint)
    if reason := _below_floor(version):
        return attrs.evolve(base, reason=reason)
    cxx = _sibling(compiler, "clang++")
    lld = _find_lld(compiler, llvm_release(version), env)
    gcc = _which("arm-none-eabi-gcc", env)
    missing = [
        (not cxx.is_file(), f"{cxx.name} is missing beside {compiler.name}"),
        (lld is None, "ld.lld (LLVM's linker) is not installed"),
        (gcc is None, "the GNU Arm toolchain (newlib-nano, libgcc, libstdc++) is not on PATH"),
    ]
    for absent, why in missing:
        if absent:
            return attrs.evolve(base, reason=why)
    return attrs.evolve(base, available=True, cxx_compiler=cxx, linker=lld, gnu_libraries=gcc)


def _atfe_root(env: Mapping[str, str]) -> tuple[Path | None, str]:
    """The ATfE folder from ATFE_ROOT, else from a clang on PATH that sits in an ATfE layout."""
    if env.get("ATFE_ROOT"):
        return Path(env["ATFE_ROOT"]), "ATFE_ROOT"
    for candidate in filter(None, [_which("clang", env)]):
        root = candidate.parent.parent
        if (root / "lib" / "clang-runtimes" / "multilib.yaml").is_file():
            return root, "PATH"
    return None, ""


def atfe_problem(root: Path) -> str:
    """What makes ``root`` not an ATfE installation, or an empty string."""
    needed = ("bin/clang", "bin/clang++", "bin/ld.lld", "bin/llvm-ar",
              "lib/clang-runtimes/multilib.yaml")
    absent = [rel for rel in needed if not (root / rel).is_file()]
    return f"has no {', '.join(absent)}" if absent else ""


def _detect_atfe(env: Mapping[str, str]) -> Toolchain:
    name = "atfe"
    root, origin = _atfe_root(env)
    if root is None:
        return Toolchain(name, False, reason="ATFE_ROOT is not set and no ATfE clang is on PATH",
                         hint=ATFE_HINT)
    if problem := atfe_problem(root):
        return Toolchain(name, False, root=root, hint=ATFE_HINT,
                         reason=f"{origin} {root} is not an ATfE installation: it {problem}")
    compiler = root / "bin" / "clang"
    version = _version_line(compiler)
    if reason := _below_floor(version):
        return Toolchain(name, False, compiler, version, reason, "llvm", root=root,
                         hint=ATFE_HINT)
    return Toolchain(name, True, compiler, version, family="llvm",
                     cxx_compiler=root / "bin" / "clang++", linker=root / "bin" / "ld.lld",
                     root=root, hint=ATFE_HINT)


def _detect_armclang(env: Mapping[str, str]) -> Toolchain:
    compiler = _which("armclang", env)
    version = _version_line(compiler) if compiler else ""
    return Toolchain("armclang", False, compiler, version, reason=ARMCLANG_REASON,
                     hint="build with --toolchain arm-none-eabi-gcc, clang or atfe")


# Every toolchain hpx knows, in the order `hpx doctor` lists them (the config's
# ``target.toolchain`` names the same, hpx_core/config/schema.py).
_DETECTORS: dict[str, Callable[[Mapping[str, str]], Toolchain]] = {
    "arm-none-eabi-gcc": _detect_gcc,
    "clang": _detect_clang,
    "atfe": _detect_atfe,
    "armclang": _detect_armclang,
}
TOOLCHAINS = tuple(_DETECTORS)


def detect_toolchains(env: Mapping[str, str] | None = None) -> dict[str, Toolchain]:
    """Every known toolchain with its availability (``env`` defaults to ``os.environ``)."""
    env = os.environ if env is None else env
    return {name: detect(env) for name, detect in _DETECTORS.items()}


def get_toolchain(name: str = DEFAULT_TOOLCHAIN, env: Mapping[str, str] | None = None
                  ) -> Toolchain:
    """The named toolchain, ready to build with, or a ToolError with the reason."""
    if name not in _DETECTORS:
        raise ToolError(
            f"unknown toolchain {name!r}{did_you_mean(name, TOOLCHAINS)}",
            f"choose one of: {', '.join(TOOLCHAINS)}",
        )
    return _DETECTORS[name](os.environ if env is None else env).require()
