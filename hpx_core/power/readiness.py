"""What a run that measures energy needs, refused before anything is fetched: a silicon board
whose power GPIOs hpx knows, the instrument's driver (the ``hpx-core[power]`` extra) and the
instrument itself, attached."""

from __future__ import annotations

from typing import Any

from hpx_core.boards import Board
from hpx_core.errors import UsageError
from hpx_core.power.joulescope import choose, instruments, load_driver


def check_power(board: Board, serial: str | None, driver: Any | None = None) -> str:
    """The instrument's device path; the HpxError of the first thing missing."""
    if board.emulated or board.silicon is None:
        raise UsageError(f"energy is measured on silicon boards; {board.name} is emulated",
                         "profile on an Apollo board with a power instrument wired to it "
                         "(--board apollo510_evb --power; docs/apollo-boards.md)")
    if board.silicon.power_gpios is None:
        raise UsageError(f"{board.name} has no power GPIOs hpx knows to drive",
                         "measure on a board whose power GPIOs are listed (hpx boards; "
                         "docs/apollo-boards.md, \"Energy\")")
    opened = driver if driver is not None else load_driver()()
    try:
        return choose(instruments(opened), serial)
    finally:
        if driver is None:
            opened.finalize()
