"""`target.clock` and `--clock`: the validated board is in the mode asked for; with an emulated
board the mode is the estimate board's; a mode the board lacks is one config error."""

from __future__ import annotations

import pytest
from insight_flags import insight_line

from hpx_core.config.command_line import CommandLine
from hpx_core.config.validate import validate_config
from hpx_core.errors import ConfigError


def test_the_flag_sets_target_clock() -> None:
    assert CommandLine(clock="hp").overrides() == {"target.clock": ("hp", "--clock")}


def test_the_validated_board_is_in_the_mode() -> None:
    flags = CommandLine(board="apollo510_evb", engine="tflm", clock="hp").overrides()
    validated = validate_config(None, flags)
    assert validated.config.target.clock == "hp"
    assert (validated.board.clock, validated.board.clock_hz) == ("hp", 250_000_000)
    assert validate_config(None, CommandLine(board="apollo510_evb", engine="tflm").overrides(),
                           ).board.clock_hz == 96_000_000


def test_an_emulated_board_keeps_its_clock_for_the_estimate_board() -> None:
    flags = insight_line(board="qemu-m55", engine="tflm", clock="hp",
                         estimate_for="apollo510_evb").overrides()
    board = validate_config(None, flags).board
    assert (board.name, board.clock, board.clock_hz) == ("qemu-m55", "lp", 32_000_000)


@pytest.mark.parametrize(("board", "words"), [
    ("qemu-m55", "target.clock: board qemu-m55 has no 'hp' clock mode (set by --clock)"),
    ("apollo3p_evb", "target.clock: board apollo3p_evb has no 'hp' clock mode (set by --clock)"),
])
def test_a_mode_the_board_lacks_is_refused(board: str, words: str) -> None:
    with pytest.raises(ConfigError) as refused:
        validate_config(None, CommandLine(board=board, engine="tflm", clock="hp").overrides())
    assert refused.value.message == words and refused.value.hint


def test_an_unknown_mode_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as refused:
        validate_config(None, CommandLine(board="apollo510_evb", engine="tflm",
                                          clock="turbo").overrides())
    assert "target.clock" in refused.value.message
