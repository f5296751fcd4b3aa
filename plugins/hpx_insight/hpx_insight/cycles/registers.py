"""Which registers an instruction writes and reads, from its operand text.

Only what the block simulator needs to see one instruction wait for another's result: core
registers by their architectural names, FP/MVE registers as the single-precision registers they
overlap (``q1`` is ``s4``-``s7``, ``d1`` is ``s2``-``s3``). Flags are not tracked.
"""

from __future__ import annotations

import re

import attrs

from hpx_insight.disasm import Instruction

_TOKEN = re.compile(r"\b(r1[0-5]|r[0-9]|sp|lr|pc|ip|fp|sl|sb|s[0-9]{1,2}|d[0-9]{1,2}|q[0-7])\b")
_ALIASES = {"ip": "r12", "fp": "r11", "sl": "r10", "sb": "r9"}
_OFFSETS = re.compile(r"\[[^\]]*\b(q[0-7])\b")
NO_DESTINATION = ("cmp", "cmn", "tst", "teq", "vcmp", "vpt", "vpst", "it", "nop", "b", "bx",
                  "cbz", "cbnz", "tbb", "tbh", "le", "letp", "dls", "wls", "dlstp", "wlstp")
TWO_DESTINATIONS = ("smull", "umull", "smlal", "umlal", "umaal", "ldrd", "ldrexd", "vmlaldav",
                    "vrmlaldavh", "vmlsldav", "vrmlsldavh", "asrl", "lsll", "lsrl")
ACCUMULATES = ("mla", "mls", "smla", "umla", "smlal", "umlal", "vmla", "vmls", "vfma", "vfms",
               "vmladava", "vmlava", "vaddva", "vmlaldava", "vrmlaldavha", "vqdmlah", "vqrdmlah")


def _units(token: str) -> tuple[str, ...]:
    token = _ALIASES.get(token, token)
    if token[0] in "dq" and token[1:].isdigit():
        width = 2 if token[0] == "d" else 4
        first = int(token[1:]) * width
        return tuple(f"s{first + k}" for k in range(width))
    return (token,)


@attrs.frozen
class Access:
    writes: tuple[str, ...]
    reads: tuple[str, ...]
    offsets: tuple[str, ...] = ()  # a gather/scatter's vector of offsets (``[r0, q1]``)


def _expand(tokens: list[str]) -> tuple[str, ...]:
    return tuple(unit for token in tokens for unit in _units(token))


def _list_and_base(operands: str) -> tuple[list[str], list[str]]:
    inside = operands[operands.find("{"):operands.find("}") + 1]
    return _TOKEN.findall(inside), _TOKEN.findall(operands.replace(inside, ""))


def access(insn: Instruction) -> Access:
    """The registers ``insn`` writes and reads."""
    name = insn.mnemonic.lower().split(".", 1)[0]
    ops = insn.operands.split(";")[0].split("<")[0]
    tokens = _TOKEN.findall(ops)
    writeback = "!" in ops or bool(re.search(r"\],\s*#?-?\w", ops))
    offsets = _expand(_OFFSETS.findall(ops)) if insn.kind.startswith("vector_") else ()
    if insn.kind in ("store", "vector_store"):
        base = re.findall(r"\[\s*(\w+)", ops)
        return Access(_expand(base if writeback else []), _expand(tokens), offsets)
    if "{" in ops:  # LDM/POP/VLDM/VPOP and their stores above: a register list
        listed, base = _list_and_base(ops)
        return Access(_expand(listed + (base if writeback else [])), _expand(base))
    if name in NO_DESTINATION or name[:-2] in NO_DESTINATION or not tokens:
        return Access((), _expand(tokens))
    if name in ("bl", "blx"):
        return Access(("lr",), _expand(tokens))
    count = 2 if name.startswith(TWO_DESTINATIONS) else 1
    writes = tokens[:count]
    reads = tokens[count:] + (writes if name.startswith(ACCUMULATES) else [])
    if insn.kind in ("load", "vector_load") and writeback:
        writes = writes + re.findall(r"\[\s*(\w+)", ops)
    return Access(_expand(writes), _expand(reads), offsets)
