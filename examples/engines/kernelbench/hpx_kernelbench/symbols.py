"""Which kernels linked: the backend the user asked for must be the one in the ELF.

The portable kernels are ``kb_*`` functions; Arm CMSIS-NN's are ``arm_*``, and ns-cmsis-nn
uses the same names plus entry points Arm's library does not have, such as the convolution
weight-sum helper ``arm_convolve_weight_sum``. A build with the wrong family (or both) did not
build what was configured, and stops before anything runs.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from hpx_core.sdk import SymbolFinding

PORTABLE = {"conv2d": "kb_conv2d_s8", "fully_connected": "kb_fully_connected_s8"}
CMSIS = {"conv2d": "arm_convolve_wrapper_s8", "fully_connected": "arm_fully_connected_s8"}
NS_ONLY = "arm_convolve_weight_sum"


def _linked(check: str, names: Collection[str], wanted: Iterable[str]) -> SymbolFinding:
    wanted = sorted(set(wanted))
    missing = [name for name in wanted if name not in names]
    detail = f"missing {', '.join(missing)}" if missing else f"linked: {', '.join(wanted)}"
    return SymbolFinding(check, not missing, detail)


def _absent(check: str, names: Collection[str], unwanted: Iterable[str]) -> SymbolFinding:
    found = sorted(set(unwanted) & set(names))
    detail = f"linked anyway: {', '.join(found)}" if found else "none linked"
    return SymbolFinding(check, not found, detail)


def verify_symbols(backend: str, names: Collection[str], ops: Iterable[str]) -> list[SymbolFinding]:
    """Findings for a kernelbench ELF with symbol ``names``, running the operators ``ops``."""
    used = sorted(set(ops))
    if backend == "portable":
        return [
            _linked("portable kernels linked", names, (PORTABLE[op] for op in used)),
            _absent("no CMSIS-NN kernel linked", names, CMSIS.values()),
        ]
    findings = [
        _linked(f"{backend} kernels linked", names, (CMSIS[op] for op in used)),
        _absent("no portable kernel linked", names, PORTABLE.values()),
    ]
    if backend == "ns" and "conv2d" in used:
        findings.append(_linked("ns-cmsis-nn weight-sum entry point linked", names, [NS_ONLY]))
    elif backend == "cmsis_nn":
        findings.append(_absent("Arm CMSIS-NN, not ns-cmsis-nn", names, [NS_ONLY]))
    return findings
