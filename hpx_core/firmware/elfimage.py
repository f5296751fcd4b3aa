"""An ELF's sections, segments and symbols: read once with lief, then kept in the hpx cache.

Every check after the link (sizes, placement, linked kernels, load segments) reads the same
few facts. lief takes over half a second to import, which a warm re-run (nothing rebuilt)
should not pay, so the facts are kept in ``$HPX_CACHE_DIR/elf-images/<SHA-256>.json``, named
by the ELF's content: a relinked ELF is read again, and nothing is written beside the ELF (a
result bundle's folder lists exactly its files).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

import attrs
import cattrs

from hpx_core.errors import BuildError
from hpx_core.kept import KeptFolder

FORMAT = 1
# 100-500 KB each: the 256 most recently used stay, older ones are removed
IMAGES = KeptFolder("elf-images", keep=256)
_converter = cattrs.Converter()


@attrs.frozen
class Section:
    name: str
    address: int
    size: int
    alloc: bool
    write: bool
    execute: bool
    nobits: bool  # occupies no file bytes (.bss, .noinit, .stack)


@attrs.frozen
class Segment:
    """A program header: ``load`` ones are what a loader or probe writes where."""

    load: bool
    physical_address: int
    physical_size: int  # bytes in the file
    memory_size: int  # bytes in memory, zero fill included


@attrs.frozen
class ElfSymbol:
    name: str
    value: int
    size: int
    kind: str  # "function" | "object" | "other"


@attrs.frozen
class ElfImage:
    sections: tuple[Section, ...]
    segments: tuple[Segment, ...]
    symbols: tuple[ElfSymbol, ...]

    def symbol(self, name: str) -> ElfSymbol | None:
        return next((s for s in self.symbols if s.name == name), None)


def read_elf(elf: Path) -> ElfImage:
    """The facts of ``elf``, from the kept copy when its digest matches, else with lief."""
    if not elf.is_file():
        raise BuildError(f"cannot read the firmware ELF {elf}", "rebuild it with `hpx build`")
    stat = elf.stat()
    return _read(str(elf.resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)


@functools.lru_cache(maxsize=8)
def _read(path: str, size: int, mtime_ns: int, inode: int) -> ElfImage:
    """One read per version of an ELF and process: a run's checks ask four times."""
    elf = Path(path)
    try:
        digest = hashlib.sha256(elf.read_bytes()).hexdigest()
    except OSError as error:
        raise BuildError(f"cannot read the firmware ELF {elf}: {error.strerror or error}",
                         "check its permissions, or rebuild it with `hpx build`") from None
    image = _load(IMAGES.load(digest), digest)
    if image is None:
        image = _parse(elf)
        IMAGES.store(digest, {"format": FORMAT, "sha256": digest,
                              "image": _converter.unstructure(image)})
    return image


def _load(data: Any, digest: str) -> ElfImage | None:
    try:
        if data.get("format") != FORMAT or data.get("sha256") != digest:
            return None
        return _converter.structure(data["image"], ElfImage)
    except (AttributeError, KeyError, TypeError, cattrs.BaseValidationError):
        return None  # absent, stale or damaged: read the ELF again


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _parse(elf: Path) -> ElfImage:
    import lief

    binary = lief.ELF.parse(str(elf))
    if binary is None:
        raise BuildError(f"cannot read the firmware ELF {elf}", "rebuild it with `hpx build`")
    flags = lief.ELF.Section.FLAGS
    kinds = {lief.ELF.Symbol.TYPE.FUNC: "function", lief.ELF.Symbol.TYPE.OBJECT: "object"}
    sections = tuple(
        Section(_text(s.name), s.virtual_address, s.size, s.has(flags.ALLOC),
                s.has(flags.WRITE), s.has(flags.EXECINSTR),
                s.type == lief.ELF.Section.TYPE.NOBITS)
        for s in binary.sections
    )
    segments = tuple(
        Segment(s.type == lief.ELF.Segment.TYPE.LOAD, s.physical_address, s.physical_size,
                s.virtual_size)
        for s in binary.segments
    )
    symbols = tuple(
        ElfSymbol(_text(s.name), s.value, s.size, kinds.get(s.type, "other"))
        for s in binary.symtab_symbols
        if s.name
    )
    return ElfImage(sections, segments, symbols)
