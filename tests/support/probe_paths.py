"""The two ways a run reaches the fake board: pyocd, and J-Link (pylink and Commander).

A test parametrized over :data:`PATHS` runs the same bench through the fake pyocd, or through
hpx's J-Link adapter over the fake pylink with the fake J-Link Commander on PATH (found the
way hpx finds the real one), so what the part does around a reset is checked on both.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import attrs
import pytest
from fake_pylink import Library, fake_pylink, install_commander
from fake_pyocd import Bench, FakeError, FakeTargetSupportError
from probe_board import BOARD

from hpx_core.boards import Board
from hpx_core.probe.commander import find_commander
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.runner import Links

PATHS = ("pyocd", "jlink")
DEVICE = "AP510NFA-CBR"
J_BOARD = attrs.evolve(BOARD, silicon=attrs.evolve(BOARD.silicon, jlink_device=DEVICE))


def pyocd(desk: Bench) -> PyocdApi:
    return PyocdApi(desk.connect_helper(), desk.file_programmer(), FakeError,
                    FakeTargetSupportError)


@attrs.frozen
class Reach:
    """The board as the path names it, the runner's keyword arguments (``api`` or
    ``links``), and the fake J-Link library when the path is J-Link's."""

    board: Board
    kwargs: dict[str, Any]
    lib: Library | None = None


def commander_on_path(folder: Path, lib: Library, monkeypatch: pytest.MonkeyPatch,
                      **behaviour: Any) -> None:
    """The fake JLinkExe in ``folder``, first on PATH."""
    install_commander(folder, lib, **behaviour)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")


def reach(path: str, desk: Bench, folder: Path, monkeypatch: pytest.MonkeyPatch,
          **commander: Any) -> Reach:
    """``desk`` through ``path``; on J-Link's, with Commander installed in ``folder``."""
    if path == "pyocd":
        return Reach(BOARD, {"api": pyocd(desk)})
    module, lib = fake_pylink(desk, {DEVICE})
    commander_on_path(folder, lib, monkeypatch, **commander)
    links = Links(pyocd(desk), module, "8.10f", find_commander(module))
    return Reach(J_BOARD, {"links": links}, lib)
