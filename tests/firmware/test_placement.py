"""Placement checks on real ELFs (the selftest linked by the real toolchain for qemu-m55).

The silicon-only checks (flash loads, boot address) run here on the same ELF with the board's
memory map changed the way a broken linker script would leave it; the Apollo ELFs themselves
are checked in tests/boards/test_apollo_builds.py (they need the pinned SDK).
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from emulated_firmware import selftest_build

from hpx_core.boards import MemoryRegion, get_board
from hpx_core.contract import (
    BufferNeed,
    CodeSize,
    FirmwareContribution,
    MemoryNeeds,
    PlannedBuffer,
)
from hpx_core.errors import BuildError, ConfigError, PluginError
from hpx_core.firmware.elfimage import read_elf
from hpx_core.firmware.elfinfo import section_sizes, symbol_inventory
from hpx_core.firmware.layout import plan_layout
from hpx_core.firmware.placement import ARENA_USES, check_elf, check_plan
from hpx_core.pipeline.memory import with_planned_buffers

QEMU = get_board("qemu-m55")


@pytest.fixture(scope="module")
def elf() -> Path:
    built: Path = selftest_build("qemu-m55")[1].elf
    return built


def as_silicon(*memory: MemoryRegion) -> object:
    return attrs.evolve(QEMU, kind="silicon", memory=memory)


def test_region_use_adds_up_the_allocated_sections(elf: Path) -> None:
    report = check_elf(QEMU, elf)
    sizes = section_sizes(elf).sections
    image = read_elf(elf)
    top, limit = (image.symbol(name) for name in ("__StackTop", "__StackLimit"))
    assert top is not None and limit is not None and top.value - limit.value == 0x10000
    # the stack's section reaches down to the heap's start; only its 64 KiB are the stack's
    stack = top.value - limit.value
    assert sum(r.used for r in report.regions) == sum(sizes.values()) - sizes[".stack"] + stack
    itcm = next(r for r in report.regions if r.region.name == "ITCM")
    assert itcm.used == sum(v for k, v in sizes.items() if k.startswith((".text", ".ARM")))


def test_a_section_outside_the_memory_map_is_caught(elf: Path) -> None:
    small = (MemoryRegion("ITCM", 0, 0x100, "code"), *QEMU.memory[1:])
    with pytest.raises(BuildError, match=r"section \.text .* lies outside every memory region"):
        check_elf(attrs.evolve(QEMU, memory=small), elf)


def test_silicon_images_must_load_into_flash_and_boot_from_its_start(elf: Path) -> None:
    itcm, sram = QEMU.regions_for("code")[0], QEMU.regions_for("data")[0]
    good = as_silicon(attrs.evolve(itcm, use="flash"), sram)
    check_elf(good, elf)  # type: ignore[arg-type]
    # the code links into ITCM as before, but flash is elsewhere: nothing loads into flash
    elsewhere = as_silicon(
        attrs.evolve(itcm, use="itcm"),
        MemoryRegion("FLASH", 0x1000_0000, 0x10_0000, "flash"),
        sram,
    )
    with pytest.raises(BuildError, match=r"would be flashed at 0x00000000, outside .* \(FLASH\)"):
        check_elf(elsewhere, elf)  # type: ignore[arg-type]
    # the board boots from its first flash region; this image's vectors are in another one
    moved = as_silicon(
        MemoryRegion("BOOT", 0x1000_0000, 0x10_0000, "flash"),
        attrs.evolve(itcm, use="flash"),
        sram,
    )
    with pytest.raises(BuildError, match="the vector table is at 0x00000000; qemu-m55 boots"):
        check_elf(moved, elf)  # type: ignore[arg-type]


def test_planned_buffers_are_found_by_symbol_and_checked(elf: Path) -> None:
    totals = next(s for s in symbol_inventory(elf).symbols if s.name == "hpx_slot_total")
    planned = PlannedBuffer("arena", "hpx_slot_total", totals.size, ARENA_USES)
    report = check_elf(QEMU, elf, [planned])
    assert report.buffers[0].region == "SRAM"
    assert report.buffers[0].address == totals.address
    with pytest.raises(BuildError, match=r"is in SRAM, planned .* in flash/code memory"):
        check_elf(QEMU, elf, [attrs.evolve(planned, uses=("flash", "code"))])
    with pytest.raises(BuildError, match=f"planned {totals.size + 1} bytes"):
        check_elf(QEMU, elf, [attrs.evolve(planned, size=totals.size + 1)])
    with pytest.raises(BuildError, match="hpx_no_such_arena"):
        check_elf(QEMU, elf, [attrs.evolve(planned, symbol="hpx_no_such_arena")])


def test_a_plan_that_cannot_fit_fails_before_the_build() -> None:
    board = get_board("apollo510_evb")
    sram = next(r for r in board.memory if r.use == "sram")
    check_plan(board, [PlannedBuffer("arena", "g_arena", sram.length, ARENA_USES)])
    with pytest.raises(ConfigError) as caught:
        check_plan(board, [PlannedBuffer("arena", "g_arena", sram.length + 1, ARENA_USES)])
    assert caught.value.message == (
        f"the arena ({sram.length + 1} bytes) fits no data/sram/tcm region of apollo510_evb: "
        f"the largest (SHARED_SRAM) has {sram.length} bytes"
    )


def test_a_planned_buffer_naming_its_symbol_is_checked_where_the_plan_put_it(elf: Path) -> None:
    """One declaration per buffer: hpx_plan_memory's. The core adds the check after the link;
    the same symbol listed again by the engine is refused before anything is compiled."""
    totals = next(s for s in symbol_inventory(elf).symbols if s.name == "hpx_slot_total")
    need = BufferNeed("slots", "slot totals", totals.size, writable=True,
                      option="engine.config.slots_location", symbol="hpx_slot_total")
    layout = plan_layout(QEMU, MemoryNeeds([need], CodeSize(1024, 1024)))
    contribution = with_planned_buffers(FirmwareContribution(files={}), layout)
    assert contribution.buffers == (
        PlannedBuffer("slot totals", "hpx_slot_total", totals.size, (layout.place("slots").word,)),)
    assert check_elf(QEMU, elf, contribution.buffers).buffers[0].region == "SRAM"
    elsewhere = attrs.evolve(layout.placements[0], word="code")
    moved = with_planned_buffers(FirmwareContribution(files={}),
                                 attrs.evolve(layout, placements=(elsewhere,)))
    with pytest.raises(BuildError) as caught:  # the glue left the plan's attribute off
        check_elf(QEMU, elf, moved.buffers)
    assert "MemoryLayout.attribute" in (caught.value.hint or "")
    again = FirmwareContribution(files={}, buffers=contribution.buffers)
    with pytest.raises(PluginError, match="hpx_slot_total is declared twice"):
        with_planned_buffers(again, layout)
