"""Explain a FAULT record: where it happened (symbolized from the ELF) and why (CFSR/HFSR)."""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.firmware.elfinfo import SymbolInventory, code_at, symbol_inventory
from hpx_core.wire import Record

_EXCEPTIONS = {
    2: "NMI",
    3: "HardFault",
    4: "MemManage",
    5: "BusFault",
    6: "UsageFault",
    7: "SecureFault",
    11: "SVCall",
    12: "DebugMonitor",
    14: "PendSV",
    15: "SysTick",
}
_CFSR_BITS = {
    0: "IACCVIOL",
    1: "DACCVIOL",
    3: "MUNSTKERR",
    4: "MSTKERR",
    5: "MLSPERR",
    7: "MMARVALID",
    8: "IBUSERR",
    9: "PRECISERR",
    10: "IMPRECISERR",
    11: "UNSTKERR",
    12: "STKERR",
    13: "LSPERR",
    15: "BFARVALID",
    16: "UNDEFINSTR",
    17: "INVSTATE",
    18: "INVPC",
    19: "NOCP",
    20: "STKOF",
    24: "UNALIGNED",
    25: "DIVBYZERO",
}
_HFSR_BITS = {1: "VECTTBL", 30: "FORCED", 31: "DEBUGEVT"}
SEMIHOSTING_CALL = b"\xab\xbe"
"""``BKPT 0xAB`` (Thumb, little-endian): Arm semihosting's call into the host."""


@attrs.frozen
class FaultReport:
    """A fault, decoded."""

    exception: str
    pc: int
    lr: int
    function: str | None  # symbol containing the PC, with offset
    caller: str | None  # symbol containing the LR
    cfsr: int
    hfsr: int
    reasons: tuple[str, ...]
    fault_address: int | None = None
    semihosting: bool = False  # the faulting instruction is a semihosting call

    def message(self) -> str:
        where = f" in {self.function}" if self.function else " (no symbol)"
        called = f", called from {self.caller}" if self.caller else ""
        why = ", ".join(self.reasons) or "no fault status bits"
        addr = (
            f", fault address 0x{self.fault_address:08x}" if self.fault_address is not None else ""
        )
        if self.semihosting:
            return (f"the firmware tried to reach the host through semihosting (BKPT 0xAB at "
                    f"PC 0x{self.pc:08x}{where}{called}); nothing reached the host")
        return (
            f"firmware {self.exception} at PC 0x{self.pc:08x}{where}{called} "
            f"(CFSR=0x{self.cfsr:08x} HFSR=0x{self.hfsr:08x}: {why}{addr})"
        )


def _bits(value: int, names: dict[int, str]) -> list[str]:
    return [name for bit, name in sorted(names.items()) if value >> bit & 1]


def _symbolize(inventory: SymbolInventory | None, address: int) -> str | None:
    if inventory is None:
        return None
    sym = inventory.function_at(address)
    if sym is None:
        return None
    return f"{sym.name}+0x{(address & ~1) - (sym.address & ~1):x}"


def describe_fault(record: Record, elf: Path | None) -> FaultReport:
    """Decode ``record`` (a FAULT) and name the functions at its PC and LR from ``elf``."""
    readable = elf if elf is not None and elf.is_file() else None
    inventory = symbol_inventory(readable) if readable is not None else None
    cfsr, hfsr = record.number("cfsr"), record.number("hfsr")
    reasons = _bits(cfsr, _CFSR_BITS) + _bits(hfsr, _HFSR_BITS)
    address = None
    if cfsr >> 15 & 1:
        address = record.number("bfar")
    elif cfsr >> 7 & 1:
        address = record.number("mmfar")
    exc = record.number("exc")
    pc = record.number("pc")
    return FaultReport(
        exception=_EXCEPTIONS.get(exc, f"exception {exc}"),
        pc=pc,
        lr=record.number("lr"),
        function=_symbolize(inventory, record.number("pc")),
        caller=_symbolize(inventory, record.number("lr")),
        cfsr=cfsr,
        hfsr=hfsr,
        reasons=tuple(reasons),
        fault_address=address,
        semihosting=readable is not None and code_at(readable, pc, 2) == SEMIHOSTING_CALL,
    )
