"""Cortex-M55 instruction timings, from LLVM's scheduling model of the core.

Source: ``llvm/lib/Target/ARM/ARMScheduleM55.td`` (LLVM project; the model ``llvm-mca
-mcpu=cortex-m55`` uses). What it says, and this table takes:

- Scalar instructions issue one per cycle on the integer pipe ("DX": 1 cycle; "CX": loads,
  multiplies, multiply-accumulates, DSP and shifted-register operations, result after 2).
- Two 16-bit (T1) instructions dual-issue when one of them is a NOP, IT, branch, ADD/SUB
  immediate, UXTB/H, SXTB/H or MOV ("M55WriteDI"); 32-bit, MVE and FP instructions issue alone.
- An MVE instruction is two beats, each one cycle on one of four EPU pipes (load/store,
  integer, float/multiply, control: ``ReleaseAtCycles=[2]``); the next instruction may start
  its first beat in the second beat's cycle when it uses another pipe (VLDR;VMLA overlap,
  VLDR;VLDRB do not). MVE loads write in 1 cycle (E2), gather loads in 2 (``M55Write2LSE3``),
  multiplies, MACs and immediate moves (``MVE_VMOVi``) in 2 (E3). A gather load or scatter store
  reads its vector of offsets 4 cycles early (``M55GatherQRead``). ``VMOV Qd, Qm`` is
  ``MVE_VORR``, on the integer pipe.
- Scalar FP: 1 cycle on the float pipe; result after 2 (add, mul, convert), 4 (VMLA), 16
  (VDIV.F32, VSQRT.F32).
- ``MispredictPenalty = 3``: the cycles a taken branch costs to refill the pipeline (the core
  predicts nothing, so every taken branch pays it).

One fact from the architecture rather than LLVM: with the Low Overhead Branch extension's loop
cache enabled (CCR.LOB, which Ambiq's SystemInit sets and hpx's Apollo start-up mirrors), a
cached loop's LE/LETP takes no issue slot after the first iteration (Armv8.1-M Architecture
Reference Manual, "Loop and branch info cache").
"""

from __future__ import annotations

import re

from hpx_insight.cycles.timing import Timing, writes_pc
from hpx_insight.disasm import Instruction

MISPREDICT = 3  # ARMScheduleM55.td: MispredictPenalty
GATHER_OFFSETS_EARLY = 4  # ARMScheduleM55.td: M55GatherQRead = SchedReadAdvance<-4>
DUAL_ISSUE = ("add", "adds", "sub", "subs", "mov", "movs", "uxtb", "uxth", "sxtb", "sxth", "it",
              "nop")
LOOP_ENDS = ("le", "letp")
MVE_LOAD_STORE = ("vldr", "vstr", "vld2", "vld4", "vst2", "vst4")
MVE_SYS = ("vctp", "vpst", "vpnot")
# MVE instructions on the float/multiply pipe (ARMScheduleM55.td "FP/Mul pipe operations")
MVE_FP_PIPE = ("vmul", "vmla", "vmls", "vqdmul", "vqrdmul", "vqdmla", "vqrdmla", "vrmla",
               "vmlav", "vmladav", "vmlaldav", "vrmlaldavh", "vmlsdav", "vmlsldav", "vfma",
               "vfms", "vaddv", "vaddlv", "vcmp", "vpt", "vcvt", "vcmul", "vcmla", "vmovx",
               "vmaxnm", "vminnm", "vrint", "vabdf", "vmulh", "vrmulh", "vmov")


_GATHER = re.compile(r"\[[^\]]*\bq[0-7]\b")
_Q_PAIR = re.compile(r"^\s*q\d,\s*q\d\s*$")


def _name(insn: Instruction) -> str:
    return insn.mnemonic.lower().split(".", 1)[0]


def _mve(insn: Instruction, name: str) -> Timing:
    if name.startswith(MVE_SYS):
        return Timing(1, "vsys")
    if name.startswith(MVE_LOAD_STORE):
        gather = bool(_GATHER.search(insn.operands))
        return Timing(2, "ls", load=name.startswith("vld"), store=name.startswith("vst"),
                      offsets_early=GATHER_OFFSETS_EARLY if gather else 0)
    if name in ("vmov", "vorr") and _Q_PAIR.match(insn.operands):
        return Timing(2, "vint")  # VMOV Qd, Qm is MVE_VORR: the integer pipe
    float_pipe = name.startswith(MVE_FP_PIPE) or ".f" in insn.mnemonic.lower()
    return Timing(2, "vfp" if float_pipe else "vint")


def m55_timing(insn: Instruction, size: int) -> Timing:
    """The Cortex-M55 timing of ``insn`` (``size`` bytes long)."""
    name, kind = _name(insn), insn.kind
    taken = 0 if name in LOOP_ENDS else MISPREDICT
    if kind.startswith("vector"):
        return _mve(insn, name)
    if name.startswith("v"):  # scalar FP, its loads and stores
        if kind in ("load", "store"):  # "VLD"/"VST": one cycle on the load/store pipe
            return Timing(1, "ls", load=kind == "load", store=kind == "store")
        return Timing(1, "vfp")
    if writes_pc(insn.operands) and kind != "branch":
        return Timing(1, taken=taken, load=kind == "load")
    if size == 2 and (kind == "branch" or name in DUAL_ISSUE):  # a pair's second: no pipe
        return Timing(1, "none", pairs=True, taken=taken if kind == "branch" else 0)
    if kind == "branch":
        return Timing(1, taken=taken)
    return Timing(1, load=kind == "load", store=kind == "store")


# MVE result latencies other than 1 (ARMScheduleM55.td: E3 = 2, E3Plus1 and E4NoFwd = 3,
# E3Plus2 = 4), by mnemonic prefix; longest prefixes first where they overlap
MVE_LATENCY = (
    (("vmovn", "vqmovn", "vqmovun", "vshrn", "vrshrn", "vqshrn", "vqrshrn", "vqshrun",
      "vqrshrun", "vabav"), 3),
    (("vmaxv", "vminv", "vmaxav", "vminav"), 0),  # by element size below
    (("vrshr", "vqrshl", "vqshl", "vrshl", "vadc", "vsbc", "vmull", "vcvt", "vrint", "vaddv",
      "vaddlv", "vcadd", "vcmla", "vcmul", "vfma", "vfms", "vmul", "vmla", "vmls",
      "vqdmul", "vqrdmul", "vqdmla", "vqrdmla", "vqdmls", "vqrdmls", "vrmlaldavh", "vmlaldav",
      "vmladav", "vmlav", "vmlsdav", "vmlsldav", "vrmulh", "vmulh"), 2),
)


def _mve_latency(insn: Instruction, name: str) -> int:
    if name == "vmov" and "#" in insn.operands:
        return 2  # VMOV.I/F immediate: "MVE_VMOVi" (MVE_VMOVimmi8 ...), M55Write2FloatE3
    for prefixes, latency in MVE_LATENCY:
        if name.startswith(prefixes):
            if latency:
                return latency
            size = insn.mnemonic.lower().rsplit(".", 1)[-1]
            return {"s8": 2, "u8": 2, "s16": 3, "u16": 3}.get(size, 4)
    if (name.startswith(("vadd", "vsub")) and ".f" in insn.mnemonic.lower()
            and not _Q_ONLY.search(insn.operands)):
        return 2  # VADD/VSUB.F with a scalar operand: MVE_VADD_qr_f, E3
    return 1


_Q_ONLY = re.compile(r"^\s*q\d,\s*q\d,\s*q\d\s*$")


def m55_latency(insn: Instruction) -> int:
    """Cycles until ``insn``'s result can be read (ARMScheduleM55.td's write latencies)."""
    name, kind = _name(insn), insn.kind
    if kind == "vector_load":  # gathers: M55Write2LSE3; contiguous loads: M55Write2LSE2
        return 2 if _GATHER.search(insn.operands) else 1
    if kind.startswith("vector"):
        return 1 if kind == "vector_store" else _mve_latency(insn, name)
    if kind == "divide" and name.startswith("v"):
        return 16
    if kind == "float":
        return 4 if name.startswith(("vmla", "vmls", "vnmla", "vnmls")) else 2
    if kind in ("load", "mac", "dsp", "divide"):
        return 2
    return 1
