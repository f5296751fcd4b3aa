"""Cortex-M4 instruction timings, from Arm's Cortex-M4 Technical Reference Manual.

Source: Arm Cortex-M4 Processor Technical Reference Manual (ARM DDI 0439B), Table 3-1
"Cortex-M4 instruction set summary" and section 3.3.2 "Load/store timings", and Table 7-1
"FPU instruction set" for the FPU:

- Data processing, MUL, the DSP SIMD and saturating instructions, SMULxy/SMLAxy/SMLAD/SMUAD,
  (S|U)MULL and (S|U)MLAL: 1 cycle; MLA and MLS: 2.
- SDIV/UDIV: 2 to 12 cycles depending on the operands: taken as 12, the bound the manual
  states (the profile does not see the operands).
- LDR: 2 cycles; a load or store right after a load whose result it does not use for its
  address pipelines, one cycle less; STR: 1 cycle (the write buffer); LDRD/STRD: 3; LDM, STM,
  PUSH, POP: 1 + N registers.
- A taken branch (B, BL, BX, BLX, CBZ/CBNZ, POP or LDR to the PC) adds P, the pipeline refill:
  "1 to 3 cycles depending on the alignment and width of the target instruction": taken as 2,
  the middle of the stated range (the profile does not see the targets' alignment).
- FPU: VADD/VSUB/VMUL/VCVT/VCMP/VMOV 1 cycle; VMLA/VMLS/VFMA/VFMS 3; VDIV/VSQRT 14;
  VLDR/VSTR 2; VLDM/VSTM/VPUSH/VPOP 1 + N.
"""

from __future__ import annotations

import re

from hpx_insight.cycles.pipeline import Step
from hpx_insight.cycles.registers import access
from hpx_insight.cycles.timing import Timing, registers_moved, writes_pc
from hpx_insight.disasm import Instruction

_CORE = re.compile(r"\b(r1[0-5]|r[0-9]|sp|lr|ip|fp)\b")
_ALIASES = {"ip": "r12", "fp": "r11"}
REFILL = 2  # P: 1 to 3 cycles
DIVIDE = 12  # SDIV/UDIV: 2 to 12 cycles


def _name(insn: Instruction) -> str:
    return insn.mnemonic.lower().split(".", 1)[0]


def _memory(insn: Instruction, name: str) -> Timing:
    load = insn.kind == "load"
    multiple = name.startswith(("ldm", "stm", "push", "pop", "vldm", "vstm", "vpush", "vpop"))
    if multiple:
        cycles = 1 + registers_moved(insn.operands)
    elif name in ("ldrd", "strd"):
        cycles = 3
    elif name.startswith("v"):
        cycles = 2
    else:
        cycles = 2 if load else 1
    taken = REFILL if writes_pc(insn.operands) else 0
    return Timing(cycles, taken=taken, load=load and not multiple, store=not load)


def m4_timing(insn: Instruction, size: int) -> Timing:
    """The Cortex-M4 timing of ``insn``."""
    name, kind = _name(insn), insn.kind
    if kind in ("load", "store"):
        return _memory(insn, name)
    if kind == "branch" or writes_pc(insn.operands):
        cycles = 2 if name in ("tbb", "tbh") else 1
        return Timing(cycles, taken=REFILL)
    if kind == "divide":
        return Timing(14 if name.startswith("v") else DIVIDE)
    if kind == "float":
        fused = name.startswith(("vmla", "vmls", "vnmla", "vnmls", "vfma", "vfms", "vfnma",
                                 "vfnms"))
        return Timing(3 if fused else 1)
    if kind == "mac":
        return Timing(2 if name.startswith(("mla", "mls")) else 1)
    return Timing(1)


def m4_latency(insn: Instruction) -> int:
    """The Cortex-M4 forwards results to the next instruction: no waits but the ones below."""
    del insn
    return 0


def m4_adjust(step: Step, prev: Step | None) -> int:
    """Section 3.3.2's load pairings: a load after a load whose result it does not use for its
    address is one cycle shorter (LDR;LDR "normally three cycles total"; a store is already one
    cycle); a load or store whose address the previous data-processing instruction wrote waits
    one cycle ("there is no forwarding path for this scenario")."""
    if prev is None or not (step.timing.load or step.timing.store) or step.timing.cycles > 2:
        return 0
    address = set(_address_registers(step.insn.operands))
    written = set(access(prev.insn).writes)
    if step.timing.load and prev.timing.load and not address & written:
        return -1
    if prev.insn.kind in ("other", "dsp", "mac") and address & written:
        return 1
    return 0


def _address_registers(operands: str) -> list[str]:
    inside = operands[operands.find("["):operands.find("]") + 1] if "[" in operands else ""
    return [_ALIASES.get(r, r) for r in _CORE.findall(inside)]
