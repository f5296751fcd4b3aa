"""Find the Arm toolchains hpx can build with, and say why one is not available.

arm-none-eabi-gcc is the default (Debian's gcc-arm-none-eabi). ATfE (Arm Toolchain for Embedded,
clang-based) is found through ATFE_ROOT; armclang on PATH. A toolchain that is not there is
reported with the reason, never guessed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import attrs

from hpx_core.config.suggest import did_you_mean
from hpx_core.errors import ToolError

ToolchainName = Literal["arm-none-eabi-gcc", "atfe", "armclang"]
TOOLCHAINS: tuple[ToolchainName, ...] = ("arm-none-eabi-gcc", "atfe", "armclang")


@attrs.frozen
class Toolchain:
    """A toolchain as detected: where its C compiler is and the version it reports."""

    name: str
    available: bool
    compiler: Path | None = None
    version: str = ""
    reason: str = ""
    toolchain_file: str = ""

    def require(self) -> Toolchain:
        """This toolchain, or a ToolError that says why it cannot be used."""
        if not self.available:
            raise ToolError(
                f"toolchain {self.name} is not available: {self.reason}",
                "install it, or use --toolchain arm-none-eabi-gcc (Debian: gcc-arm-none-eabi)",
            )
        return self


def _version(compiler: Path) -> str:
    try:
        done = subprocess.run(
            [str(compiler), "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError as error:
        return f"unknown ({error})"
    first = (done.stdout or done.stderr).strip().splitlines()
    return first[0] if first else "unknown"


def _detect_gcc(env: Mapping[str, str]) -> Toolchain:
    name = "arm-none-eabi-gcc"
    found = shutil.which(name, path=env.get("PATH"))
    if not found:
        return Toolchain(name, False, reason="arm-none-eabi-gcc is not on PATH")
    compiler = Path(found)
    return Toolchain(name, True, compiler, _version(compiler), toolchain_file="arm-none-eabi-gcc")


def _detect_atfe(env: Mapping[str, str]) -> Toolchain:
    root = env.get("ATFE_ROOT", "")
    if not root:
        return Toolchain("atfe", False, reason="ATFE_ROOT is not set")
    compiler = Path(root) / "bin" / "clang"
    if not compiler.is_file():
        return Toolchain("atfe", False, reason=f"ATFE_ROOT has no bin/clang ({compiler})")
    return Toolchain(
        "atfe",
        False,
        compiler,
        _version(compiler),
        reason="found, but this hpx version has no ATfE build recipe yet",
    )


def _detect_armclang(env: Mapping[str, str]) -> Toolchain:
    found = shutil.which("armclang", path=env.get("PATH"))
    if not found:
        return Toolchain("armclang", False, reason="armclang is not on PATH")
    compiler = Path(found)
    return Toolchain(
        "armclang",
        False,
        compiler,
        _version(compiler),
        reason="found, but this hpx version has no armclang build recipe yet",
    )


def detect_toolchains(env: Mapping[str, str] | None = None) -> dict[str, Toolchain]:
    """Every known toolchain with its availability (``env`` defaults to ``os.environ``)."""
    env = os.environ if env is None else env
    return {
        "arm-none-eabi-gcc": _detect_gcc(env),
        "atfe": _detect_atfe(env),
        "armclang": _detect_armclang(env),
    }


def get_toolchain(name: str, env: Mapping[str, str] | None = None) -> Toolchain:
    """The named toolchain, ready to build with, or a ToolError with the reason."""
    if name not in TOOLCHAINS:
        raise ToolError(
            f"unknown toolchain {name!r}{did_you_mean(name, TOOLCHAINS)}",
            f"choose one of: {', '.join(TOOLCHAINS)}",
        )
    return detect_toolchains(env)[name].require()
