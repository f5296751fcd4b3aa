"""Where the firmware's memory went, checked against the board's memory map.

Two moments: before the build, a plan (the arena, the weights) must fit the regions it may
use, or the user hears so before anything compiles; after the link, every allocated section
must lie inside a region, every byte to be flashed inside flash, the vector table where the
boot loader looks for it, and every planned buffer (found by its ELF symbol)
inside a region it may use. A failed check after the link stops a run before flashing.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import attrs

from hpx_core.boards import Board, MemoryRegion
from hpx_core.contract import PlannedBuffer
from hpx_core.errors import BuildError, ConfigError
from hpx_core.firmware.elfimage import ElfImage, Section, read_elf

# Region uses a buffer may be placed in (boards.toml: flash, data, sram, itcm, tcm, code).
ARENA_USES = ("data", "sram", "tcm")
WEIGHTS_USES = ("flash", "sram", "code")
VECTOR_SYMBOL = "hpx_vectors"
NOT_USAGE = (".heap",)  # the heap section spans what is left, it is not used memory
STACK_SECTION = ".stack"
STACK_LIMIT = "__StackLimit"


@attrs.frozen
class RegionUse:
    region: MemoryRegion
    used: int

    @property
    def free(self) -> int:
        return self.region.length - self.used


@attrs.frozen
class PlacedBuffer:
    buffer: PlannedBuffer
    address: int
    size: int
    region: str


def _regions(value: Iterable[RegionUse]) -> tuple[RegionUse, ...]:
    return tuple(value)


def _placed(value: Iterable[PlacedBuffer]) -> tuple[PlacedBuffer, ...]:
    return tuple(value)


@attrs.frozen
class PlacementReport:
    board: str
    regions: tuple[RegionUse, ...] = attrs.field(converter=_regions)
    buffers: tuple[PlacedBuffer, ...] = attrs.field(converter=_placed)


def _allowed(board: Board, uses: tuple[str, ...]) -> list[MemoryRegion]:
    return [r for r in board.memory if any(r.serves(word) for word in uses)]


def _region_of(board: Board, start: int, size: int) -> MemoryRegion | None:
    for region in board.memory:
        if region.origin <= start and start + size <= region.origin + region.length:
            return region
    return None


def check_plan(board: Board, buffers: Iterable[PlannedBuffer]) -> None:
    """Before the build: each buffer fits some region it may use (ConfigError otherwise)."""
    for buffer in buffers:
        regions = _allowed(board, buffer.uses)
        largest = max(regions, key=lambda r: r.length, default=None)
        if largest is None or largest.length < buffer.size:
            where = (
                f"the largest ({largest.name}) has {largest.length} bytes"
                if largest
                else "it has none"
            )
            raise ConfigError(
                f"the {buffer.what} ({buffer.size} bytes) fits no {'/'.join(buffer.uses)} region "
                f"of {board.name}: {where}",
                f"make the {buffer.what} smaller or choose a board with more memory",
            )


def _sections(board: Board, image: ElfImage) -> dict[str, int]:
    used = {r.name: 0 for r in board.memory}
    for section in image.sections:
        if not section.alloc or section.size == 0:
            continue
        region = _region_of(board, section.address, section.size)
        if region is None:
            raise BuildError(
                f"section {section.name} ({section.size} bytes at "
                f"{section.address:#010x}) lies outside every memory region of "
                f"{board.name}",
                "the linker script does not match the board; rebuild with `hpx build`",
            )
        if section.name not in NOT_USAGE:
            used[region.name] += _reserved(image, section)
    return used


def _reserved(image: ElfImage, section: Section) -> int:
    """The bytes a section takes. The stack's section starts where the heap ends and reaches
    the region's top, but only the part from its limit up is the stack: the rest is the heap's
    room, free unless something allocates."""
    limit = image.symbol(STACK_LIMIT) if section.name == STACK_SECTION else None
    end = section.address + section.size
    if limit is None or not section.address <= limit.value <= end:
        return section.size
    return end - limit.value


def _loads(board: Board, image: ElfImage) -> None:
    """On silicon, every byte the probe writes must land in flash."""
    flash = board.regions_for("flash")
    for segment in image.segments:
        if not segment.load or segment.physical_size == 0:
            continue
        start, size = segment.physical_address, segment.physical_size
        if not any(r.origin <= start and start + size <= r.origin + r.length for r in flash):
            raise BuildError(
                f"{size} bytes would be flashed at {start:#010x}, outside {board.name}'s flash "
                f"({', '.join(r.name for r in flash)})",
                "a section has no load address in flash (check the linker script)",
            )


def _vectors(board: Board, image: ElfImage) -> None:
    flash = board.regions_for("flash")[0]
    symbol = image.symbol(VECTOR_SYMBOL)
    if symbol is None or symbol.value != flash.origin:
        where = "missing" if symbol is None else f"at {symbol.value:#010x}"
        raise BuildError(
            f"the vector table is {where}; {board.name} boots from {flash.origin:#010x}",
            "the image would not start: check the board support's linker script",
        )


def _buffer(board: Board, image: ElfImage, buffer: PlannedBuffer) -> PlacedBuffer:
    symbol = image.symbol(buffer.symbol)
    if symbol is None:
        raise BuildError(
            f"the {buffer.what} ({buffer.symbol}) is not in the firmware",
            "the engine's glue must define it under that name (extern \"C\" in C++); "
            "report it to the engine's authors",
        )
    region = _region_of(board, symbol.value, symbol.size)
    allowed = region is not None and any(region.serves(word) for word in buffer.uses)
    if region is None or not allowed or symbol.size < buffer.size:
        place = region.name if region else "no region"
        raise BuildError(
            f"the {buffer.what} ({buffer.symbol}, {symbol.size} bytes at {symbol.value:#010x}) "
            f"is in {place}, planned {buffer.size} bytes in {'/'.join(buffer.uses)} memory",
            "its definition's section decides where it goes: the engine's glue must give it "
            "MemoryLayout.attribute(<its buffer>); report it to the engine's authors",
        )
    return PlacedBuffer(buffer, symbol.value, symbol.size, region.name)


def check_elf(board: Board, elf: Path, buffers: Iterable[PlannedBuffer] = ()) -> PlacementReport:
    """After the link: sections, loads, vector table and planned buffers where they belong."""
    image = read_elf(elf)
    used = _sections(board, image)
    if not board.emulated:
        _loads(board, image)
        _vectors(board, image)
    placed = [_buffer(board, image, b) for b in buffers]
    return PlacementReport(board.name, [RegionUse(r, used[r.name]) for r in board.memory], placed)
