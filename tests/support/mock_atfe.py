"""An ATfE-shaped install made from Debian packages, for testing the ``atfe`` recipe.

Arm Toolchain for Embedded is published only as release archives, so the tests build a tree
with ATfE's layout instead: ``bin/clang`` (Debian's clang-19, told to find its resource and
runtime folders beside the wrapper), ``lib/clang-runtimes/multilib.yaml`` with one variant per
emulated CPU, and in each variant picolibc (Debian's picolibc-arm-none-eabi, ATfE's default C
library) with GCC's libgcc standing in for compiler-rt's builtins. It carries no C++ library, so
it builds C firmware (the selftest), not the C++ engines.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

LLVM = Path("/usr/lib/llvm-19")
PICOLIBC = Path("/usr/lib/picolibc/arm-none-eabi")
# variant folder -> (multilib flags clang derives for the CPU, picolibc's multilib folder,
#                    the CPU flags GCC is asked for its libgcc with)
VARIANTS = {
    "armv8.1m.main_hard_fp": (
        ["--target=thumbv8.1m.main-unknown-none-eabihf", "-mfpu=fp-armv8-fullfp16-d16"],
        "thumb/v8.1-m.main+mve/hard", ["-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb"]),
    "armv7em_hard_fpv4_sp_d16": (
        ["--target=thumbv7em-unknown-none-eabihf", "-mfpu=fpv4-sp-d16"],
        "thumb/v7e-m+fp/hard",
        ["-mcpu=cortex-m4", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard", "-mthumb"]),
}


def mock_atfe_missing() -> str:
    """Why the mock cannot be made on this machine, or an empty string."""
    needed = [LLVM / "bin" / "clang", LLVM / "bin" / "ld.lld", PICOLIBC / "include"]
    absent = [str(p) for p in needed if not p.exists()]
    if shutil.which("arm-none-eabi-gcc") is None:
        absent.append("arm-none-eabi-gcc")
    return f"needs {', '.join(absent)} (clang-19 lld-19 llvm-19 picolibc-arm-none-eabi)" if (
        absent) else ""


def _wrapper(path: Path, tool: str) -> None:
    # -no-canonical-prefixes: the driver looks for lib/ beside this wrapper, not beside Debian's
    # binary; ATfE's own clang needs no such flag because it is not a wrapper.
    real = LLVM / "bin" / tool
    path.write_text(f'#!/bin/bash\ncase "$1" in -cc1*) exec -a "$0" {real} "$@";; esac\n'
                    f'exec -a "$0" {real} -no-canonical-prefixes "$@"\n', encoding="utf-8")
    path.chmod(0o755)


def _libgcc(cpu: list[str]) -> Path:
    done = subprocess.run(["arm-none-eabi-gcc", *cpu, "-print-libgcc-file-name"],
                          capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def make_mock_atfe(root: Path) -> Path:
    """Build the tree at ``root`` and return it (use it as ATFE_ROOT)."""
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True)
    _wrapper(bin_dir / "clang", "clang")
    _wrapper(bin_dir / "clang++", "clang++")
    (bin_dir / "ld.lld").symlink_to(LLVM / "bin" / "ld.lld")
    for tool in ("ar", "ranlib"):  # llvm-19 has them; GNU's archive the same objects
        llvm = LLVM / "bin" / f"llvm-{tool}"
        gnu = Path(shutil.which(f"arm-none-eabi-{tool}") or llvm)
        (bin_dir / f"llvm-{tool}").symlink_to(llvm if llvm.is_file() else gnu)
    (root / "lib").mkdir()
    (root / "lib" / "clang").symlink_to(LLVM / "lib" / "clang")
    runtimes = root / "lib" / "clang-runtimes"
    lines = ["MultilibVersion: 1.0", "Variants:"]
    for variant, (flags, multi, cpu) in VARIANTS.items():
        folder = runtimes / "arm-none-eabi" / variant
        (folder / "lib").mkdir(parents=True)
        (folder / "include").symlink_to(PICOLIBC / "include")
        for item in (PICOLIBC / "lib" / multi).iterdir():
            (folder / "lib" / item.name).symlink_to(item)
        libgcc = _libgcc(cpu)
        for name in ("libgcc.a", "libclang_rt.builtins.a"):
            (folder / "lib" / name).symlink_to(libgcc)
        lines += [f"- Dir: arm-none-eabi/{variant}", f"  Flags: [{', '.join(flags)}]"]
    (runtimes / "multilib.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root
