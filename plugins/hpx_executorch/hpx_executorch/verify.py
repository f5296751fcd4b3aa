"""Which CMSIS-NN provider and which kernels a linked ExecuTorch ELF really contains (lief).

The arm and ns providers both name their library ``cmsis-nn`` and share most function names, so
a build that silently picked the wrong one looks right until it runs. The symbols tell them
apart: ns-cmsis-nn's convolutions carry a weight-sum ABI (``arm_convolve_weight_sum``,
``arm_convolve_s8_get_weights_sum_size``) that Arm's CMSIS-NN does not have, and only an ns-ops
build registers ``cortex_m_ns::native::quantized_*_out`` kernels.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import attrs

from hpx_core.sdk import SymbolFinding, ToolError
from hpx_core.sdk.firmware import symbol_inventory

NS_ABI = ("arm_convolve_weight_sum", "arm_convolve_s8_get_weights_sum_size")
NS_KERNEL = re.compile(r"^cortex_m_ns::native::quantized_\w+_out\b")
PORTABLE_KERNEL = re.compile(r"^torch::executor::native::\w+_out\b")
# The generated selective registration: its anonymous-namespace kernel table and the
# register function of the selected-kernels library.
PORTABLE_TABLE = re.compile(r"(kernels_to_register|register_all_kernels|"
                            r"RegisterCodegenUnboxedKernels)")


def qualified(name: str) -> str:
    """``ns::name`` of an Itanium-mangled nested name (``_ZN..E``); other names unchanged.

    Enough to match kernels by namespace and name without a C++ demangler.
    """
    if not name.startswith("_ZN"):
        return name
    pos, parts = 3, []
    while pos < len(name) and name[pos] in "KVrL":
        pos += 1
    while pos < len(name) and name[pos].isdigit():
        digits = pos
        while name[pos].isdigit():
            pos += 1
        length = int(name[digits:pos])
        parts.append(name[pos:pos + length])
        pos += length
    return "::".join(parts) if parts else name


def _strs(value: Iterable[str]) -> frozenset[str]:
    return frozenset(qualified(v) for v in value)


@attrs.frozen
class SymbolNames:
    """Defined symbol names of one ELF, nested C++ names written ``ns::name``."""

    names: frozenset[str] = attrs.field(converter=_strs)

    def matching(self, pattern: re.Pattern[str]) -> list[str]:
        return sorted(n for n in self.names if pattern.search(n))


def _short(names: list[str], limit: int = 4) -> str:
    shown = [n.split("(")[0] for n in names[:limit]]
    more = f" (+{len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(shown) + more


def arm_findings(inv: SymbolNames, expect_portable: bool) -> list[SymbolFinding]:
    """Arm CMSIS-NN build: no ns ABI, no ns kernels; portable kernels when expected."""
    ns_abi = sorted(n for n in inv.names if n.split("(")[0] in NS_ABI)
    ns_kernels = inv.matching(re.compile(r"cortex_m_ns"))
    found = [
        SymbolFinding("arm: no ns-cmsis-nn weight-sum ABI", not ns_abi,
                      f"found {_short(ns_abi)}" if ns_abi else "arm_convolve_weight_sum and "
                      "arm_convolve_s8_get_weights_sum_size absent"),
        SymbolFinding("arm: no cortex_m_ns kernels", not ns_kernels,
                      f"found {_short(ns_kernels)}" if ns_kernels else "no cortex_m_ns symbols"),
    ]
    if expect_portable:
        table = inv.matching(PORTABLE_TABLE)
        kernels = inv.matching(PORTABLE_KERNEL)
        found.append(SymbolFinding("portable registration table linked", bool(table),
                                   _short(table) if table else "no portable registration table"))
        found.append(SymbolFinding("portable kernels linked", bool(kernels),
                                   _short(kernels) if kernels else
                                   "no torch::executor::native:: kernels"))
    return found


def ns_findings(inv: SymbolNames, ns_ops: bool) -> list[SymbolFinding]:
    """ns-cmsis-nn build: the weight-sum ABI; with ns ops, the cortex_m_ns kernels."""
    present = {n.split("(")[0] for n in inv.names}
    missing = [name for name in NS_ABI if name not in present]
    found = [SymbolFinding("ns: ns-cmsis-nn weight-sum ABI linked", not missing,
                           f"missing {', '.join(missing)}" if missing else ", ".join(NS_ABI))]
    if ns_ops:
        kernels = inv.matching(NS_KERNEL)
        found.append(SymbolFinding("ns: cortex_m_ns::native kernels linked", bool(kernels),
                                   _short(kernels) if kernels else
                                   "no cortex_m_ns::native::quantized_*_out kernels"))
    return found


def verify(elf: Path, provider: str, *, expect_portable: bool = False,
           ns_ops: bool = False) -> list[SymbolFinding]:
    """The provider checks for ``elf``: every finding, passed or not."""
    if not elf.is_file():
        raise ToolError(f"ELF not found: {elf}", "build the firmware first (hpx build)")
    return findings(symbol_inventory(elf).names(), provider, expect_portable=expect_portable,
                    ns_ops=ns_ops)


def findings(names: Iterable[str], provider: str, *, expect_portable: bool = False,
             ns_ops: bool = False) -> list[SymbolFinding]:
    """The provider checks over a symbol inventory's names."""
    inventory = SymbolNames(names)
    if provider == "arm":
        return arm_findings(inventory, expect_portable)
    if provider == "ns":
        return ns_findings(inventory, ns_ops)
    raise ToolError(f"unknown provider {provider!r}", "use --provider arm or --provider ns")
