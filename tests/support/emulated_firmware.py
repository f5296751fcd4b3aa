"""Build and run real firmware for the emulated tests, once per process and board.

Everything here uses the real toolchain and QEMU; tests that call it are marked ``emulated``.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.contract import FirmwareContribution
from hpx_core.firmware import (
    BuildResult,
    HarnessSettings,
    Project,
    build_project,
    get_toolchain,
    render_project,
)
from hpx_core.run import RunOutput, run_on_qemu
from hpx_core.selftest.layers import selftest_contribution

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "firmware"
TOOLS = ("arm-none-eabi-gcc", "qemu-system-arm", "cmake", "ninja")

_scratch = Path(tempfile.mkdtemp(prefix="hpx-emulated-"))
atexit.register(shutil.rmtree, _scratch, True)


def require_tools() -> None:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"emulated test needs {', '.join(missing)} (CI installs them)")


def fixture_contribution(name: str) -> FirmwareContribution:
    """An engine glue file from tests/fixtures/firmware as a contribution."""
    file = next(p.name for p in FIXTURES.glob(f"{name}.*"))
    return FirmwareContribution(files={file: (FIXTURES / file).read_text("utf-8")}, sources=(file,))


def build(
    work: Path, board_name: str, contribution: FirmwareContribution, engine: str
) -> tuple[Project, BuildResult]:
    board = get_board(board_name)
    project = render_project(work, board, contribution, HarnessSettings(engine))
    return project, build_project(project, get_toolchain("arm-none-eabi-gcc"))


@functools.cache
def selftest_build(board_name: str) -> tuple[Project, BuildResult]:
    """The selftest firmware for ``board_name`` (built once per test process)."""
    require_tools()
    board = get_board(board_name)
    return build(
        _scratch / f"selftest-{board_name}", board_name, selftest_contribution(board), "selftest"
    )


@functools.cache
def selftest_run(board_name: str) -> RunOutput:
    """One QEMU run of the selftest firmware (cached)."""
    project, result = selftest_build(board_name)
    return run_on_qemu(project.board, result.elf, timeout=120)


@functools.cache
def fixture_build(name: str, board_name: str = "qemu-m55") -> tuple[Project, BuildResult]:
    """A fixture engine (fault_engine, hang_engine, error_engine) built for ``board_name``."""
    require_tools()
    return build(_scratch / f"{name}-{board_name}", board_name, fixture_contribution(name), name)
