"""Clock modes as board data: each Apollo board's modes and clocks, the board in a mode, and
the modes a board lacks refused with one error naming those it has."""

from __future__ import annotations

import pytest

from hpx_core.boards import all_boards, get_board
from hpx_core.errors import ConfigError

HP_HZ = {"apollo510_evb": 250_000_000, "apollo330mP_evb": 250_000_000,
         "apollo4p_evb": 192_000_000}


def test_every_board_runs_at_its_reset_clock_in_lp() -> None:
    for board in all_boards().values():
        assert board.clock == "lp" and dict(board.clocks)["lp"] == board.clock_hz


@pytest.mark.parametrize(("name", "hz"), HP_HZ.items())
def test_the_hp_mode_is_the_socs_high_performance_clock(name: str, hz: int) -> None:
    board = get_board(name).at_clock("hp")
    assert (board.clock, board.clock_hz) == ("hp", hz)
    assert board.silicon is not None and board.silicon.hal_library.endswith("/libam_hal.a")
    assert get_board(name).clock_hz == 96_000_000  # the registry's board stays in lp


@pytest.mark.parametrize(("name", "hint"), [
    ("qemu-m55", "the emulated boards run at one clock"), ("qemu-m4", "an Apollo board"),
    ("apollo3p_evb", "apollo3p_evb runs in: lp")])
def test_a_board_without_hp_refuses_it(name: str, hint: str) -> None:
    with pytest.raises(ConfigError) as refused:
        get_board(name).at_clock("hp")
    assert refused.value.message == f"board {name} has no 'hp' clock mode"
    assert hint in refused.value.hint
