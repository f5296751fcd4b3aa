"""Memory accesses whose place and size the code alone gives: the stack's and literal pools'.

An access through ``sp`` (``[sp, ...]``, PUSH/POP, VPUSH/VPOP, LDM/STM on ``sp``) lands in the
stack's region, which the reset vector's initial stack pointer names; a literal load
(``[pc, #imm]``) reads the word at Align(PC, 4) + imm. Counting those from each execution of the
instruction costs nothing at run time, while the plugin's callback per access is most of the
pass's cost, so the plugin is told to leave them alone and their loads, stores and bytes are
added here from the instruction counts. Instructions in an IT block (their condition may skip
the access), MVE accesses (predication may skip lanes) and the harness's measuring functions
keep their callbacks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import attrs

from hpx_core.sdk.passes import code_at
from hpx_insight.classes import CONDITIONS
from hpx_insight.cycles.timing import registers_moved
from hpx_insight.disasm import Code, Instruction
from hpx_insight.markers import Markers
from hpx_insight.qemu_pass import NamedRange
from hpx_insight.raw import InsnCount, MemoryUse, RawProfile

_LITERAL = re.compile(r"\[pc,\s*#(-?\d+)\]")
_SIZES = {"ldrb": 1, "strb": 1, "ldrsb": 1, "ldrh": 2, "strh": 2, "ldrsh": 2, "ldrd": 8,
          "strd": 8, "ldr": 4, "str": 4}
MULTIPLE = ("push", "pop", "vpush", "vpop", "ldm", "ldmia", "ldmfd", "stmdb", "stmfd", "stm",
            "stmia")


@attrs.frozen
class StaticUse:
    """What one execution of the instruction moves, and where."""

    region: int
    store: bool
    bytes: int


def _conditional(name: str) -> bool:
    return len(name) > 2 and name[-2:] in CONDITIONS and name[:-2] in (*_SIZES, *MULTIPLE,
                                                                       "vldr", "vstr")


def _bytes(insn: Instruction, name: str) -> int | None:
    ops = insn.operands
    if name in MULTIPLE:
        width = 8 if re.search(r"\{\s*d\d", ops) else 4
        return width * registers_moved(ops)
    if name in ("vldr", "vstr"):
        return 8 if re.match(r"\s*d\d", ops) else 4 if re.match(r"\s*s\d", ops) else None
    return _SIZES.get(name)


def _address(insn: Instruction, stack: int) -> int | None:
    ops = insn.operands.replace(" ", "")
    literal = _LITERAL.search(insn.operands)
    if literal:
        return ((insn.address + 4) & ~3) + int(literal[1])
    if "[sp" in ops or ops.startswith("sp") or insn.mnemonic.startswith(("push", "pop",
                                                                         "vpush", "vpop")):
        return stack
    return None


def initial_stack(elf: Path) -> int:
    """The stack pointer the reset vector loads (the vector table's first word, at 0)."""
    word = code_at(elf, 0, 4)
    return int.from_bytes(word, "little") - 4 if len(word) == 4 else 0


def _region(address: int, ranges: Sequence[NamedRange]) -> int:
    return next((i for i, r in enumerate(ranges) if r.start <= address < r.end), len(ranges))


def static_uses(code: Code, ranges: Sequence[NamedRange], stack: int, markers: Markers
                ) -> dict[int, StaticUse]:
    """Every instruction whose accesses the code alone gives, with one execution's use."""
    out: dict[int, StaticUse] = {}
    for address, insn in code.instructions.items():
        if insn.kind not in ("load", "store") or any(
                span.start <= address < span.end for span in (markers.begin, markers.end)):
            continue
        name = insn.mnemonic.lower().split(".", 1)[0]
        size = _bytes(insn, name)
        where = _address(insn, stack)
        if _conditional(name) or size is None or where is None or insn.branch:
            continue
        out[address] = StaticUse(_region(where, ranges), insn.kind == "store", size)
    return out


def _with_static(insn: InsnCount, use: StaticUse | None) -> InsnCount:
    if use is None or insn.count == 0:
        return insn
    n = insn.count
    added = MemoryUse(use.region, 0 if use.store else n, n if use.store else 0,
                      0 if use.store else n * use.bytes, n * use.bytes if use.store else 0)
    return attrs.evolve(insn, memory=(*insn.memory, added))


def add_static(raw: RawProfile, uses: Mapping[int, StaticUse]) -> RawProfile:
    """``raw`` with the accesses the plugin was told to leave alone, from the counts."""
    slots = {index: attrs.evolve(slot, insns=tuple(_with_static(i, uses.get(i.address))
                                                   for i in slot.insns))
             for index, slot in raw.slots.items()}
    return attrs.evolve(raw, slots=slots)
