"""The executed instructions as the toolchain disassembles them, with their functions."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

from hpx_core.sdk.firmware import Board, symbol_inventory
from hpx_insight.binutils import Binutils
from hpx_insight.classes import Kind, classify, is_branch

_LINE = re.compile(r"^\s*([0-9a-f]+):\s+([a-z][\w.]*)\s*(.*?)\s*(?:[;@].*)?$")


@attrs.frozen
class Instruction:
    """One instruction of the code: what it is and where it lives."""

    address: int
    mnemonic: str
    operands: str
    kind: Kind
    branch: bool  # it may transfer control (a branch, or a write to the PC)
    function: str


@attrs.frozen
class Code:
    """The instructions the profile needs, by address."""

    instructions: Mapping[int, Instruction]

    def at(self, address: int) -> Instruction:
        found = self.instructions.get(address)
        if found is None:  # code objdump cannot see (none in hpx's images): counted as other
            return Instruction(address, "?", "", "other", False, "?")
        return found


def _functions(elf: Path) -> tuple[list[int], list[tuple[int, str]]]:
    spans = sorted(((s.address & ~1), (s.address & ~1) + max(s.size, 1), s.name)
                   for s in symbol_inventory(elf).symbols if s.kind == "function")
    return [start for start, _, _ in spans], [(end, name) for _, end, name in spans]


def read_code(elf: Path, board: Board, tools: Binutils,
              wanted: Iterable[int] | None = None) -> Code:
    """The instructions at ``wanted`` addresses (all by default), classified, each with its
    function."""
    wanted_set = set(wanted) if wanted is not None else None
    starts, ends = _functions(elf)
    found: dict[int, Instruction] = {}
    for line in tools.disassembly(elf, board).splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        address = int(match[1], 16)
        if wanted_set is not None and address not in wanted_set:
            continue
        mnemonic, operands = match[2], match[3]
        at = bisect.bisect_right(starts, address) - 1
        function = ends[at][1] if at >= 0 and address < ends[at][0] else "?"
        found[address] = Instruction(address, mnemonic, operands, classify(mnemonic, operands),
                                     is_branch(mnemonic, operands), function)
    return Code(found)
