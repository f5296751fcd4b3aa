"""The memory plan on the real boards' memory maps: defaults kept, moves when needed, refusals
in one sentence, and the linker's overflow in the same sentence."""

from __future__ import annotations

import pytest

from hpx_core.boards import get_board
from hpx_core.contract import BufferNeed, CodeSize, MemoryNeeds
from hpx_core.errors import ConfigError
from hpx_core.firmware.layout import link_overflow, linked_code, plan_layout

CODE = CodeSize(least=24 * 1024, likely=128 * 1024)
MIB = 1024 * 1024


def _needs(model: int, arena: int = 2 * MIB, location: str | None = None,
           arena_location: str | None = None, code: CodeSize = CODE) -> MemoryNeeds:
    return MemoryNeeds(
        buffers=(
            BufferNeed("model", "model", model, writable=False, option="model.location",
                       location=location),
            BufferNeed("arena", "tensor arena", arena, writable=True,
                       option="model.arena_location", location=arena_location,
                       resize="model.arena_size"),
        ),
        code=code,
    )


def _where(needs: MemoryNeeds, board: str) -> dict[str, tuple[str, str]]:
    layout = plan_layout(get_board(board), needs)
    return {p.need.name: (p.region, p.section) for p in layout.placements}


@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
def test_a_model_that_fits_keeps_the_default_places_and_needs_no_attribute(board: str) -> None:
    assert _where(_needs(333_288), board) == {"model": ("ITCM", ""), "arena": ("SRAM", "")}


def test_a_model_over_the_m55_code_memory_goes_to_its_qspi_flash() -> None:
    assert _where(_needs(535_240), "qemu-m55") == {"model": ("QSPI", ".hpx_qspi"),
                                                   "arena": ("SRAM", "")}


def test_the_m4_code_memory_holds_a_model_of_several_megabytes() -> None:
    assert _where(_needs(3 * MIB), "qemu-m4")["model"] == ("ITCM", "")
    assert _where(_needs(5 * MIB), "qemu-m4")["model"] == ("PSRAM", ".hpx_psram")


def test_the_likely_code_size_is_kept_free_when_choosing() -> None:
    """450 KB fits ITCM beside the least code, not beside the likely: hpx moves it."""
    assert _where(_needs(450 * 1024), "qemu-m55")["model"][0] == "QSPI"


def test_only_the_least_code_size_can_refuse() -> None:
    """No other place for the model: the plan keeps ITCM while the least code fits there."""
    needs = _needs(450 * 1024, location="code")
    assert _where(needs, "qemu-m55")["model"] == ("ITCM", "")


def test_a_named_place_that_cannot_hold_the_model_is_refused_with_the_fix() -> None:
    with pytest.raises(ConfigError) as caught:
        plan_layout(get_board("qemu-m55"), _needs(535_240, location="code"))
    assert caught.value.message == (
        "region ITCM of qemu-m55 (524,288 bytes) cannot hold the code (at least 24,576 bytes) "
        "and the model (535,240 bytes): 35,536 bytes too many")  # aligned to 16 bytes
    assert caught.value.hint == "set model.location: flash (QSPI, 8,388,608 bytes free)"


def test_a_model_larger_than_every_memory_is_refused_naming_the_largest() -> None:
    for board, largest in (("qemu-m55", "QSPI, has 8,388,608"), ("qemu-m4",
                                                                  "PSRAM, has 16,777,216")):
        with pytest.raises(ConfigError) as caught:
            plan_layout(get_board(board), _needs(17 * MIB))
        assert caught.value.message.startswith(f"region ITCM of {board} (")
        assert "the model (17,825,792 bytes)" in caught.value.message
        assert f"the largest that can hold it, {largest} bytes" in caught.value.hint


def test_an_arena_too_large_for_the_named_memory_names_where_it_fits() -> None:
    with pytest.raises(ConfigError) as caught:
        plan_layout(get_board("qemu-m55"), _needs(50_000, arena=MIB, arena_location="tcm"))
    assert caught.value.message.startswith("region DTCM of qemu-m55 (524,288 bytes) cannot hold "
                                           "the tensor arena (1,048,576 bytes)")
    assert "model.arena_location: data (SRAM" in caught.value.hint


def test_a_memory_the_board_lacks_is_refused_with_the_choices() -> None:
    with pytest.raises(ConfigError) as caught:
        plan_layout(get_board("qemu-m4"), _needs(50_000, arena_location="tcm"))
    assert caught.value.message == (
        "model.arena_location is tcm, but qemu-m4 has no tcm memory that can hold the tensor "
        "arena")
    assert caught.value.hint == "choose one of: data, psram, sram"  # SRAM is data and sram


def test_writable_buffers_never_go_to_flash() -> None:
    with pytest.raises(ConfigError, match="has no flash memory that can hold the tensor arena"):
        plan_layout(get_board("apollo510_evb"), _needs(50_000, arena_location="flash"))


def test_apollo_defaults_are_flash_and_tcm_and_sram_uses_the_sdk_sections() -> None:
    assert _where(_needs(300_000, arena=100_000), "apollo510_evb") == {
        "model": ("MCU_MRAM", ""), "arena": ("MCU_TCM", "")}
    placed = _where(_needs(300_000, arena=100_000, location="sram", arena_location="sram"),
                    "apollo510_evb")
    assert placed == {"model": ("SHARED_SRAM", ".shared.hpx"),
                      "arena": ("SHARED_SRAM", ".sram_bss")}


def test_the_linkers_overflow_is_the_same_sentence_with_the_code_it_measured() -> None:
    board = get_board("qemu-m55")
    layout = plan_layout(board, _needs(494_120, location="code"))
    assert linked_code(board, layout, "ITCM", 14_604) == 44_764
    error = link_overflow(board, layout, "ITCM", 14_604)
    assert error.message == (
        "region ITCM of qemu-m55 (524,288 bytes) cannot hold the code (44,764 bytes) and the "
        "model (494,120 bytes): 14,604 bytes too many")
    assert error.hint == "set model.location: flash (QSPI, 8,388,608 bytes free)"


def test_the_measured_code_size_moves_a_model_hpx_placed() -> None:
    """The plan an overflow leads to: with the code the linker measured, the model moves."""
    board = get_board("qemu-m55")
    optimistic = _needs(494_120, code=CodeSize(16 * 1024, 16 * 1024))
    first = plan_layout(board, optimistic)
    assert first.place("model").region == "ITCM" and not first.place("model").chosen
    code = linked_code(board, first, "ITCM", 14_604)
    again = plan_layout(board, _needs(494_120, code=CodeSize(code, code)))
    assert again.place("model").region == "QSPI"
