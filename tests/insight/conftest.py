"""The selftest firmware (loops of known length) built and timed once per emulated board, and
its instruction profile, shared by the instruction-profile and estimate tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hpx_insight.profile import InstructionProfile, instruction_profile

from hpx_core.boards import get_board
from hpx_core.selftest.run import SelftestReport, run_selftest

TOOLS = ("arm-none-eabi-gcc", "qemu-system-arm", "ninja", "cc")


def needs_tools() -> None:
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (CI installs them)")


@pytest.fixture(scope="session")
def insight_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache of its own: the plugin is compiled here the first time a test needs it."""
    return tmp_path_factory.mktemp("insight-cache")


@pytest.fixture(scope="session", params=["qemu-m55", "qemu-m4"])
def selftest_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
                 ) -> SelftestReport:
    needs_tools()
    board: str = request.param
    work = tmp_path_factory.mktemp(f"selftest-{board}")
    return run_selftest(board, work / "work", work / "results", runs=1)


@pytest.fixture(scope="session")
def selftest_profile(selftest_run: SelftestReport, insight_cache: Path) -> InstructionProfile:
    return instruction_profile(selftest_run.build.elf, get_board(selftest_run.board),
                               cache=insight_cache)
