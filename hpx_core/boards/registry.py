"""Load the board data shipped with hpx and look boards up by name."""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any

from hpx_core.boards.model import Board, MemoryRegion, QemuSpec, SiliconSpec
from hpx_core.errors import ConfigError
from hpx_core.suggest import did_you_mean


def _board_from(name: str, data: dict[str, Any]) -> Board:
    qemu = data.get("qemu")
    clock_hz = int(data["clock_hz"])
    # a board without modes runs at its one clock, called lp (the reset clock)
    clocks = tuple((mode, int(hz)) for mode, hz in data.get("clocks", {"lp": clock_hz}).items())
    return Board(
        name=name,
        kind=data["kind"],
        description=data["description"],
        core=data["core"],
        cpu_vendor=data["cpu_vendor"],
        clock_hz=clock_hz,
        counter=data["counter"],
        runner=data["runner"],
        support=data["support"],
        cpu_flags=tuple(data["cpu_flags"]),
        features=tuple(data.get("features", ())),
        memory=tuple(MemoryRegion(**region) for region in data["memory"]),
        qemu=QemuSpec(**qemu) if qemu else None,
        silicon=SiliconSpec(**data["silicon"]) if "silicon" in data else None,
        clocks=clocks,
    )


@functools.cache
def all_boards() -> dict[str, Board]:
    """Every board in ``boards.toml``, by name, in file order."""
    text = resources.files("hpx_core.boards").joinpath("boards.toml").read_text("utf-8")
    table = tomllib.loads(text)
    return {name: _board_from(name, data) for name, data in table["boards"].items()}


def get_board(name: str) -> Board:
    """The board called ``name``, or a ConfigError that suggests the closest known name."""
    boards = all_boards()
    if name in boards:
        return boards[name]
    raise ConfigError(
        f"unknown board {name!r}{did_you_mean(name, boards)}",
        f"known boards: {', '.join(boards)} (see `hpx boards`)",
    )
