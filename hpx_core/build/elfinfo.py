"""What the linked ELF holds: section sizes and a symbol inventory, read with lief."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from hpx_core.errors import BuildError

if TYPE_CHECKING:
    import lief  # loaded when an ELF is read: importing it takes about 0.3 s


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


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _parse(elf: Path) -> lief.ELF.Binary:
    import lief

    binary = lief.ELF.parse(str(elf)) if elf.is_file() else None
    if binary is None:
        raise BuildError(f"cannot read the firmware ELF {elf}", "rebuild it with `hpx build`")
    return binary


def load_segments(elf: Path) -> list[tuple[int, int]]:
    """(physical address, memory size) of every PT_LOAD segment: what a loader writes where."""
    import lief

    binary = _parse(elf)  # kept alive while its segments are read
    return [
        (segment.physical_address, segment.virtual_size)
        for segment in binary.segments
        if segment.type == lief.ELF.Segment.TYPE.LOAD and segment.virtual_size > 0
    ]


def section_sizes(elf: Path) -> SectionSizes:
    """text/data/bss as `size` counts them: allocated sections by flags and type."""
    import lief

    flags = lief.ELF.Section.FLAGS
    binary = _parse(elf)
    text = data = bss = 0
    sections: dict[str, int] = {}
    for section in binary.sections:
        name = _text(section.name)
        if not section.has(lief.ELF.Section.FLAGS.ALLOC) or section.size == 0:
            continue
        sections[name] = section.size
        if section.type == lief.ELF.Section.TYPE.NOBITS:
            if name in (".stack", ".heap"):
                continue
            bss += section.size
        elif section.has(flags.EXECINSTR) or not section.has(flags.WRITE):
            text += section.size
        else:
            data += section.size
    return SectionSizes(text, data, bss, sections)


def symbol_inventory(elf: Path) -> SymbolInventory:
    """Function and object symbols with a name, address and size."""
    import lief

    binary = _parse(elf)
    found: dict[tuple[str, int], Symbol] = {}
    for sym in binary.symtab_symbols:
        name = _text(sym.name)
        if not name or name.startswith("$"):
            continue
        if sym.type == lief.ELF.Symbol.TYPE.FUNC:
            kind = "function"
        elif sym.type == lief.ELF.Symbol.TYPE.OBJECT:
            kind = "object"
        else:
            continue
        found[(name, sym.value)] = Symbol(name, sym.value, sym.size, kind)
    return SymbolInventory(tuple(sorted(found.values(), key=lambda s: (s.address, s.name))))
