"""The silicon counter backends refuse to count when their counter does not work.

QEMU does not implement the DWT cycle counter (its enable bit reads back 0), so the real DWT
backend, built into the selftest firmware for the emulated Cortex-M4, must stop at boot with
its coded error on the wire instead of reporting zeros; the host names the failure.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from emulated_firmware import require_tools

from hpx_core.boards import get_board
from hpx_core.errors import RunError
from hpx_core.firmware import HarnessSettings, build_project, get_toolchain, render_project
from hpx_core.run import QemuRunner, judge
from hpx_core.run.record import COUNTER_ERRORS
from hpx_core.selftest.layers import selftest_contribution
from hpx_core.wire import parse_capture

pytestmark = pytest.mark.emulated


def test_dwt_backend_reports_a_counter_that_does_not_count(tmp_path: Path) -> None:
    require_tools()
    board = attrs.evolve(get_board("qemu-m4"), counter="dwt")
    project = render_project(
        tmp_path, board, selftest_contribution(board), HarnessSettings("selftest")
    )
    built = build_project(project, get_toolchain("arm-none-eabi-gcc"))
    out = QemuRunner(board, timeout=60).execute(built.elf)
    capture = parse_capture(out.stream)
    assert out.exit_code == 0 and capture.status == 2  # QEMU ended normally; END says 2
    assert [r.type for r in capture.records] == ["START", "ERROR", "END"]
    assert capture.start.text("counter") == "dwt" and capture.start.text("units") == "cycles"
    error = capture.records[1]
    assert (error.text("stage"), error.number("code")) == ("counter_init", 11)
    assert not capture.of("LAYER") and not capture.of("WHOLE")  # no zeros reported
    with pytest.raises(RunError, match=COUNTER_ERRORS[11]):
        judge(board, built.elf, out, timeout=60)
