"""`--clock` on the command line: a board without the mode is one error, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.cli import main


@pytest.mark.parametrize("argv", [
    ["build", "--board", "qemu-m55", "--clock", "hp"],
    ["build", "--board", "apollo3p_evb", "--clock", "hp"],
])
def test_a_mode_the_board_lacks_is_refused(argv: list[str], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code = main([*argv, "--work-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code != 0 and "has no 'hp' clock mode" in err and "Traceback" not in err


def test_clock_without_a_board_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["build", "--clock", "hp", "--work-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code != 0 and "no board is named" in err and "Traceback" not in err
