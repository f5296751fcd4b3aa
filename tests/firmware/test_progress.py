"""Library build progress from Ninja's status lines: a listener, or a line every tenth."""

from __future__ import annotations

import pytest

from hpx_core.firmware.progress import bar, ninja_status, reporting, tracker


def test_ninja_status_lines_are_read_and_others_ignored() -> None:
    assert ninja_status("[12/340] Building CXX object kernels/conv.cc.obj\n") == (12, 340)
    assert ninja_status("ninja: no work to do.\n") is None
    assert ninja_status("-- Configuring done\n") is None


def test_without_a_listener_one_line_per_tenth(capsys: pytest.CaptureFixture[str]) -> None:
    feed = tracker("tflm_cmsis_nn")
    for done in range(1, 41):
        feed(f"[{done}/40] Building C object x{done}.c.obj\n")
        feed("warning: something the compiler said\n")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "building tflm_cmsis_nn: 10% (4/40 units)"
    assert lines[-1] == "building tflm_cmsis_nn: 100% (40/40 units)"
    assert len(lines) == 10


def test_a_listener_hears_every_status(capsys: pytest.CaptureFixture[str]) -> None:
    heard: list[tuple[str, int, int]] = []
    with reporting(lambda name, done, total: heard.append((name, done, total))):
        feed = tracker("executorch_arm")
        feed("[1/3] Building CXX object a\n")
        feed("[3/3] Linking CXX static library libb.a\n")
    assert heard == [("executorch_arm", 1, 3), ("executorch_arm", 3, 3)]
    assert capsys.readouterr().err == ""
    assert bar(1, 4, width=8) == "[##------]"
