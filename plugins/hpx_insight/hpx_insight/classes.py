"""What kind of work an instruction is, from its mnemonic and operands (GNU/LLVM syntax).

Every executed instruction falls in exactly one class, so a layer's classes add up to its
instructions. Memory instructions are split by what they move (scalar or MVE vector); their
memory regions are counted apart (``memory`` in the profile). Branches are taken or not taken
by what the plugin saw execute next, so the class here is only ``branch``.
"""

from __future__ import annotations

import re
from typing import Literal

from hpx_insight.schemas import CLASSES as PROFILE_CLASSES

Kind = Literal["load", "store", "vector_load", "vector_store", "vector_mac", "vector", "mac",
               "dsp", "float", "divide", "branch", "other"]

CLASSES = PROFILE_CLASSES
"""The classes of a profile, in the order reports show them (they split ``branch``)."""

CONDITIONS = frozenset({"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls",
                        "ge", "lt", "gt", "le", "al"})
_Q_REGISTER = re.compile(r"\bq[0-7]\b")
_WRITES_PC = re.compile(r"^pc\b|\bpc\}")
BRANCHES = frozenset({"b", "bl", "blx", "bx", "bxns", "blxns", "cbz", "cbnz", "tbb", "tbh",
                      "le", "letp", "wls", "wlstp", "bf", "bfl", "bfx", "bflx", "bfcsel"})
MAC_PREFIXES = ("mul", "mla", "mls", "smul", "smla", "smls", "smmul", "smmla", "smmls", "smuad",
                "smusd", "umull", "umlal", "umaal", "smull", "smlal")
DSP_PREFIXES = ("qadd", "qsub", "qdadd", "qdsub", "qasx", "qsax", "sadd", "ssub", "sasx", "ssax",
                "shadd", "shsub", "shasx", "shsax", "uadd", "usub", "uasx", "usax", "uhadd",
                "uhsub", "uhasx", "uhsax", "uqadd", "uqsub", "uqasx", "uqsax", "usad", "ssat",
                "usat", "sxtb16", "sxtab", "sxtah", "uxtb16", "uxtab", "uxtah", "pkhbt", "pkhtb",
                "sel", "asrl", "lsll", "lsrl", "sqrshr", "uqrshl", "srshr", "urshr", "uqshl",
                "sqshl")
VECTOR_MAC_PREFIXES = ("vmla", "vmls", "vmladav", "vmlsdav", "vmlaldav", "vmlsldav", "vrmlaldavh",
                       "vrmlsldavh", "vfma", "vfms", "vmul", "vqdmul", "vqrdmul", "vqdmla",
                       "vqrdmla", "vqdmls", "vqrdmls", "vrmulh", "vcmul", "vcmla")
VECTOR_CONTROL = ("vpst", "vpt", "vctp", "vpnot", "vpsel")
FLOAT_LOADS = ("vldr", "vldm", "vpop", "vlldm")
FLOAT_STORES = ("vstr", "vstm", "vpush", "vlstm")


def base_name(mnemonic: str) -> str:
    """The mnemonic without width or data-type suffixes (``ldr.w`` and ``vadd.i8`` too)."""
    return mnemonic.lower().split(".", 1)[0]


def _uncondition(name: str, known: frozenset[str]) -> str:
    """``bne`` -> ``b``, ``bxeq`` -> ``bx``: a branch name with an IT/condition suffix."""
    if len(name) > 2 and name[-2:] in CONDITIONS and name[:-2] in known:
        return name[:-2]
    return name


def is_branch(mnemonic: str, operands: str) -> bool:
    """Does it (maybe) transfer control: branches and every write to the PC."""
    name = _uncondition(base_name(mnemonic), BRANCHES)
    return name in BRANCHES or bool(_WRITES_PC.search(operands.replace(" ", "")))


def _vector_or_float(name: str, operands: str) -> Kind:
    if name.startswith(VECTOR_CONTROL):
        return "vector"
    vector = bool(_Q_REGISTER.search(operands))
    if name.startswith(("vldr", "vld2", "vld4")) and (vector or name[4:5] in "bhwd"):
        return "vector_load" if vector else "load"
    if name.startswith(("vstr", "vst2", "vst4")) and (vector or name[4:5] in "bhwd"):
        return "vector_store" if vector else "store"
    if name.startswith(FLOAT_LOADS):
        return "load"
    if name.startswith(FLOAT_STORES):
        return "store"
    if not vector:
        return "divide" if name.startswith(("vdiv", "vsqrt")) else "float"
    return "vector_mac" if name.startswith(VECTOR_MAC_PREFIXES) else "vector"


def classify(mnemonic: str, operands: str) -> Kind:
    """The class of one instruction (before branches are split into taken/not taken)."""
    name = base_name(mnemonic)
    if is_branch(mnemonic, operands) and not name.startswith(("ldm", "pop", "ldr")):
        return "branch"
    if name.startswith("v"):
        return _vector_or_float(name, operands)
    if name.startswith(("ldr", "ldm", "lda", "pop")):
        return "load"
    if name.startswith(("str", "stm", "stl", "push")):
        return "store"
    if name in ("sdiv", "udiv"):
        return "divide"
    if name.startswith(MAC_PREFIXES):
        return "mac"
    if name.startswith(DSP_PREFIXES):
        return "dsp"
    return "other"
