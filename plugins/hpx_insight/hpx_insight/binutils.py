"""The toolchain's own disassembler and symbolizer for an ELF it built.

GCC builds are read with the GNU Arm toolchain's objdump and addr2line; LLVM builds (clang,
ATfE) with llvm-objdump and llvm-symbolizer beside their compiler (or the GNU objdump, which
the clang toolchain has anyway, when llvm-objdump is not installed). Both answer in the same
shapes: ``ADDR:<tab>MNEMONIC<tab>OPERANDS`` lines, and FUNCTION / FILE:LINE pairs.
"""

from __future__ import annotations

import posixpath
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from hpx_core.sdk import ToolError
from hpx_core.sdk.firmware import Board, get_toolchain

GNU_PREFIX = "arm-none-eabi-"
HINT = "install the GNU Arm toolchain (Debian: apt-get install binutils-arm-none-eabi)"


@attrs.frozen
class Binutils:
    """Where the disassembler and the symbolizer are, and how to call them."""

    objdump: Path
    symbolizer: Path
    llvm_symbolizer: bool

    def disassembly(self, elf: Path, board: Board) -> str:
        """The ELF's code as the toolchain disassembles it (MVE decoded on Armv8.1-M)."""
        arch = ["-marmv8.1-m.main"] if "mve" in board.features else []
        if self.objdump.name.startswith("llvm"):
            arch = ["--mattr=+mve.fp"] if arch else []
        argv = [str(self.objdump), "-d", "--no-show-raw-insn", *arch, str(elf)]
        return _run(argv, "disassemble")

    def locations(self, elf: Path, addresses: Sequence[int]) -> Mapping[int, tuple[str, str]]:
        """(function, file:line) of each address, from the ELF's DWARF."""
        if not addresses:
            return {}
        if self.llvm_symbolizer:
            argv = [str(self.symbolizer), "--obj", str(elf), "--functions=linkage",
                    "--no-inlines", "--demangle"]
        else:
            argv = [str(self.symbolizer), "-e", str(elf), "-f", "-C"]
        text = _run(argv, "symbolize", "\n".join(f"0x{a:x}" for a in addresses) + "\n")
        lines = [line for line in text.splitlines() if line.strip()]
        pairs = list(zip(lines[0::2], lines[1::2], strict=False))
        return {a: (fn.strip(), _tidy(where.strip())) for a, (fn, where) in zip(addresses, pairs,
                                                                                strict=False)}


def _tidy(where: str) -> str:
    """``FILE:LINE`` with the file's path made plain: an app's sources are named from its build
    folder (``./../project/engine/x.cc``: :mod:`hpx_core.firmware.debug_paths`)."""
    file, colon, line = where.rpartition(":")
    return f"{posixpath.normpath(file)}:{line}" if colon and "/" in file else where


def _run(argv: list[str], what: str, stdin: str | None = None) -> str:
    try:
        done = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
    except OSError as error:
        raise ToolError(f"cannot {what} with {argv[0]}: {error.strerror}", HINT) from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise ToolError(f"{Path(argv[0]).name} could not {what} the firmware: {first}", HINT)
    return done.stdout


def _llvm_tool(compiler: Path, tool: str) -> Path | None:
    beside = compiler.resolve().parent / tool
    if beside.is_file():
        return beside
    found = shutil.which(tool)
    return Path(found) if found else None


def binutils_for(toolchain: str) -> Binutils:
    """The tools of ``toolchain`` (its name as in ``target.toolchain``)."""
    chain = get_toolchain(toolchain)
    gnu_objdump = shutil.which(GNU_PREFIX + "objdump")
    if chain.family == "llvm" and chain.compiler is not None:
        symbolizer = _llvm_tool(chain.compiler, "llvm-symbolizer")
        objdump = _llvm_tool(chain.compiler, "llvm-objdump")
        if symbolizer is not None and (objdump or gnu_objdump):
            return Binutils(objdump or Path(str(gnu_objdump)), symbolizer, True)
    addr2line = shutil.which(GNU_PREFIX + "addr2line")
    if gnu_objdump is None or addr2line is None:
        raise ToolError(f"the {toolchain} toolchain's objdump and addr2line are not on PATH",
                        HINT)
    return Binutils(Path(gnu_objdump), Path(addr2line), False)
