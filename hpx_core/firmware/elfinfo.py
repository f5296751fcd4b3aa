"""What the linked ELF holds: section sizes and a symbol inventory."""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.firmware.elfimage import read_elf


@attrs.frozen
class Symbol:
    """A function or object symbol of the firmware."""

    name: str
    address: int
    size: int
    kind: str  # "function" | "object"


@attrs.frozen
class SectionSizes:
    """Bytes in code/read-only (text), initialized data (data) and zeroed data (bss)."""

    text: int
    data: int
    bss: int
    sections: dict[str, int] = attrs.field(factory=dict)


@attrs.frozen
class SymbolInventory:
    """Every sized function and object symbol, by name."""

    symbols: tuple[Symbol, ...]

    def names(self) -> frozenset[str]:
        return frozenset(s.name for s in self.symbols)

    def function_at(self, address: int) -> Symbol | None:
        """The function containing ``address`` (Thumb bit ignored), if any."""
        address &= ~1
        for sym in self.symbols:
            start = sym.address & ~1
            if sym.kind == "function" and start <= address < start + max(sym.size, 1):
                return sym
        return None


def code_at(elf: Path, address: int, size: int) -> bytes:
    """``size`` bytes the ELF loads at ``address`` (Thumb bit ignored), or b"" where it loads
    none (read for the rare fault that needs the instruction itself)."""
    import lief

    binary = lief.ELF.parse(str(elf))
    if binary is None:
        return b""
    try:
        return bytes(binary.get_content_from_virtual_address(address & ~1, size))
    except Exception:  # lief raises its own errors for an address outside every segment
        return b""


def load_segments(elf: Path) -> list[tuple[int, int]]:
    """(physical address, memory size) of every PT_LOAD segment: what a loader writes where."""
    return [
        (segment.physical_address, segment.memory_size)
        for segment in read_elf(elf).segments
        if segment.load and segment.memory_size > 0
    ]


def section_sizes(elf: Path) -> SectionSizes:
    """text/data/bss as `size` counts them: allocated sections by flags and type."""
    text = data = bss = 0
    sections: dict[str, int] = {}
    for section in read_elf(elf).sections:
        if not section.alloc or section.size == 0:
            continue
        sections[section.name] = section.size
        if section.nobits:
            if section.name in (".stack", ".heap"):
                continue
            bss += section.size
        elif section.execute or not section.write:
            text += section.size
        else:
            data += section.size
    return SectionSizes(text, data, bss, sections)


def symbol_inventory(elf: Path) -> SymbolInventory:
    """Function and object symbols with a name, address and size."""
    found: dict[tuple[str, int], Symbol] = {}
    for sym in read_elf(elf).symbols:
        if sym.name.startswith("$") or sym.kind == "other":
            continue
        found[(sym.name, sym.value)] = Symbol(sym.name, sym.value, sym.size, sym.kind)
    return SymbolInventory(tuple(sorted(found.values(), key=lambda s: (s.address, s.name))))
