"""Board data: lookup, suggestions, and agreement with the board support templates."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from hpx_core.boards import all_boards, get_board
from hpx_core.errors import ConfigError

TEMPLATES = Path(__file__).resolve().parents[2] / "firmware_templates"


def test_emulated_boards_are_arm_reference_designs() -> None:
    boards = all_boards()
    assert {"qemu-m55", "qemu-m4"} <= set(boards)
    for name in ("qemu-m55", "qemu-m4"):
        board = boards[name]
        assert board.kind == "emulated" and board.runner == "qemu"
        assert board.cpu_vendor == "Arm"
        assert board.counter_units() == "instructions (emulated)"
    assert boards["qemu-m55"].qemu is not None and boards["qemu-m55"].qemu.machine == "mps3-an547"
    assert boards["qemu-m4"].qemu is not None and boards["qemu-m4"].qemu.machine == "mps2-an386"


def test_unknown_board_suggests_the_closest_name() -> None:
    with pytest.raises(ConfigError) as caught:
        get_board("qemu-m5")
    assert "did you mean 'qemu-m55'" in caught.value.message
    assert "qemu-m4" in caught.value.hint


def test_tick_conversion_follows_clock_and_icount_shift() -> None:
    # an547: 31.25 ns ticks, an386: 40 ns ticks; shift 10 = 1024 ns per instruction
    assert get_board("qemu-m55").instructions_per_tick() == Fraction(3125, 102400)
    assert get_board("qemu-m4").instructions_per_tick() == Fraction(40, 1024)


@pytest.mark.parametrize("name", ["qemu-m55", "qemu-m4"])
def test_memory_map_matches_the_linker_script(name: str) -> None:
    board = get_board(name)
    script = (TEMPLATES / "boards" / board.support / "link.ld").read_text()
    found = {
        m["name"]: (int(m["origin"], 16), _size(m["length"]))
        for m in re.finditer(
            r"(?P<name>\w+) \(\w+\)\s*: ORIGIN = (?P<origin>0x[0-9A-Fa-f]+), "
            r"LENGTH = (?P<length>\w+)",
            script,
        )
    }
    assert found == {r.name: (r.origin, r.length) for r in board.memory}


@pytest.mark.parametrize("name", ["qemu-m55", "qemu-m4"])
def test_board_header_matches_the_data(name: str) -> None:
    board = get_board(name)
    header = (TEMPLATES / "boards" / board.support / "board.h").read_text()
    clock = re.search(r"HPX_CPU_CLOCK_HZ (\d+)u", header)
    assert clock and int(clock.group(1)) == board.clock_hz
    assert f'"{board.name}"' in header
    mve = re.search(r"HPX_HAS_MVE (\d)", header)
    assert mve and (mve.group(1) == "1") == ("mve" in board.features)


def _size(text: str) -> int:
    units = {"K": 1024, "M": 1024 * 1024}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text, 0)
