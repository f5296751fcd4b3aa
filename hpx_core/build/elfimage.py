"""An ELF's sections, segments and symbols: read once with lief, then kept in the hpx cache.

Every check after the link (sizes, placement, linked kernels, load segments) reads the same
few facts. lief takes over half a second to import, which a warm re-run (nothing rebuilt)
should not pay, so the facts are kept in ``$HPX_CACHE_DIR/elf-images/<SHA-256>.json``, named
by the ELF's content: a relinked ELF is read again, and nothing is written beside the ELF (a
result bundle's folder lists exactly its files).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

import attrs
import cattrs

from hpx_core.errors import BuildError
from hpx_core.sources.cache import cache_root

FORMAT = 1
FOLDER = "elf-images"
KEEP = 256  # entries (100-500 KB each): the most recently used stay, older ones are removed
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
    kept = cache_root() / FOLDER / f"{digest}.json"
    image = _load(kept, digest)
    if image is None:
        image = _parse(elf)
        _keep(kept, digest, image)
        _prune(kept.parent)
    else:
        with contextlib.suppress(OSError):  # a read-only cache is read all the same
            kept.touch()  # recently used: kept when older entries are pruned
    return image


def _load(path: Path, digest: str) -> ElfImage | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT or data.get("sha256") != digest:
            return None
        return _converter.structure(data["image"], ElfImage)
    except (OSError, ValueError, KeyError, TypeError, cattrs.BaseValidationError):
        return None  # absent, stale or damaged: read the ELF again


def _keep(path: Path, digest: str, image: ElfImage) -> None:
    data = {"format": FORMAT, "sha256": digest, "image": _converter.unstructure(image)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)  # one per writer
    except OSError:
        return  # a read-only cache: read with lief next time too
    tmp = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            json.dump(data, file, separators=(",", ":"))
        tmp.replace(path)
    except OSError:
        tmp.unlink(missing_ok=True)


def _prune(folder: Path) -> None:
    """Remove all but the ``KEEP`` most recently used entries (a concurrent prune may have
    removed some already)."""
    entries = []
    for path in folder.glob("*.json"):
        try:
            entries.append((path.stat().st_mtime_ns, path))
        except OSError:
            continue
    for _, path in sorted(entries, reverse=True)[KEEP:]:
        with contextlib.suppress(OSError):  # a read-only cache keeps what it has
            path.unlink(missing_ok=True)


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
