"""What a firmware loads, to compare two builds of one program byte for byte."""

from __future__ import annotations

from pathlib import Path

import lief


def loaded_image(elf: Path) -> list[tuple[str, bytes]]:
    """Every allocated section with contents (code, constants, initialized data), by name."""
    binary = lief.ELF.parse(str(elf))
    assert binary is not None, f"{elf} is not an ELF file"
    return [(str(s.name), bytes(s.content)) for s in binary.sections
            if s.has(lief.ELF.Section.FLAGS.ALLOC) and s.type != lief.ELF.Section.TYPE.NOBITS]
