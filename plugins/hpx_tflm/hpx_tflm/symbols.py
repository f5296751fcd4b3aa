"""Which TFLM kernels linked: the backend the user asked for must be the one in the ELF.

CMSIS-NN kernels are C functions named ``arm_*_s8``/``arm_*_s16`` (e.g.
``arm_convolve_wrapper_s8``); the reference kernels use none of them. A ``cmsis_nn`` build
without any, or a ``reference`` build with some, was not built as configured.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hpx_core.sdk import SymbolFinding

_CMSIS_NN = re.compile(r"^arm_\w+_(s8|s16|s4)$")
_INTERPRETER = "_ZN6tflite16MicroInterpreter6InvokeEv"


def cmsis_nn_kernels(names: Iterable[str]) -> list[str]:
    return sorted(n for n in names if _CMSIS_NN.match(n))


def verify_symbols(backend: str, names: set[str]) -> list[SymbolFinding]:
    """Findings for a linked ``tflm`` ELF with symbol ``names``."""
    kernels = cmsis_nn_kernels(names)
    findings = [SymbolFinding(
        "tflm interpreter linked", _INTERPRETER in names,
        "MicroInterpreter::Invoke present" if _INTERPRETER in names else
        "MicroInterpreter::Invoke missing: the engine library was not linked")]
    if backend == "cmsis_nn":
        findings.append(SymbolFinding(
            "CMSIS-NN kernels linked", bool(kernels),
            f"{len(kernels)} CMSIS-NN functions, e.g. {', '.join(kernels[:3])}" if kernels
            else "no arm_*_s8 function linked: the build used reference kernels"))
    else:
        findings.append(SymbolFinding(
            "reference kernels only", not kernels,
            "no CMSIS-NN function linked" if not kernels
            else f"CMSIS-NN functions linked in a reference build: {', '.join(kernels[:3])}"))
    return findings
