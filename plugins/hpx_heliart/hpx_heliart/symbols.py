"""Which heliaRT backend linked: the kernels in the ELF must be the ones the user asked for.

Arm CMSIS-NN and Ambiq's ns-cmsis-nn both name their kernels ``arm_*_s8``/``arm_*_s16``, so
the presence of such functions only says "an optimized backend". What tells them apart are the
entry points ns-cmsis-nn adds and heliaRT's ``helia`` kernels call: the weight-sum helpers its
convolutions precompute in Prepare, and its s16 fully-connected and s8/s16 add wrappers. These
are declared in ns-cmsis-nn's ``Include/arm_nnfunctions.h`` and absent from Arm CMSIS-NN at the
pin (a test derives that from both checkouts).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from hpx_core.sdk import SymbolFinding

NS_ONLY = (
    "arm_convolve_weight_sum",
    "arm_depthwise_convolve_weight_sum",
    "arm_convolve_s8_get_weights_sum_size",
    "arm_fully_connected_wrapper_s16",
    "arm_fully_connected_per_channel_s16_get_buffer_size",
    "arm_add_s8",
    "arm_add_s16",
)
_KERNEL = re.compile(r"^arm_\w+_(s8|s16|s4)$")
INTERPRETER = "_ZN6tflite16MicroInterpreter6InvokeEv"


def kernels(names: Iterable[str]) -> list[str]:
    return sorted(n for n in names if _KERNEL.match(n))


def ns_entry_points(names: Iterable[str]) -> list[str]:
    return sorted(set(names) & set(NS_ONLY))


def _interpreter(names: set[str]) -> SymbolFinding:
    ok = INTERPRETER in names
    return SymbolFinding(
        "heliaRT interpreter linked", ok,
        "MicroInterpreter::Invoke present" if ok
        else "MicroInterpreter::Invoke missing: the heliaRT library was not linked")


def _sample(items: list[str]) -> str:
    return ", ".join(items[:3])


def verify_symbols(backend: str, names: set[str]) -> list[SymbolFinding]:
    """Findings for a linked ``helia-rt`` ELF with symbol ``names``."""
    found, ns = kernels(names), ns_entry_points(names)
    findings = [_interpreter(names)]
    if backend == "helia":
        ok = bool(found) and bool(ns)
        findings.append(SymbolFinding(
            "ns-cmsis-nn kernels linked", ok,
            f"{len(found)} kernel functions incl. ns-cmsis-nn entry points {_sample(ns)}" if ok
            else "no ns-cmsis-nn entry point linked: the build did not use the helia backend"))
    elif backend == "cmsis_nn":
        ok = bool(found) and not ns
        detail = (f"{len(found)} Arm CMSIS-NN functions, e.g. {_sample(found)}" if ok
                  else f"ns-cmsis-nn entry points linked: {_sample(ns)}" if ns
                  else "no arm_*_s8 function linked: the build used reference kernels")
        findings.append(SymbolFinding("Arm CMSIS-NN kernels linked", ok, detail))
    else:
        findings.append(SymbolFinding(
            "reference kernels only", not found,
            "no CMSIS-NN or ns-cmsis-nn function linked" if not found
            else f"kernel library functions linked in a reference build: {_sample(found)}"))
    return findings
