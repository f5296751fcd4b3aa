"""What a run that measures energy needs, refused before anything is fetched: a silicon board
whose power GPIOs hpx drives (:func:`check_board`; a build of the power firmware needs no more),
then the instrument's driver (the ``hpx-core[power]`` extra) and the instrument itself,
attached (:func:`find_instrument`)."""

from __future__ import annotations

from typing import Any

from hpx_core.boards import Board
from hpx_core.errors import UsageError
from hpx_core.power.joulescope import choose, instruments, load_driver


def check_board(board: Board) -> None:
    """UsageError unless ``board`` is silicon whose two power GPIOs the firmware can drive
    (listed pads and the SoC's prebuilt HAL, through which the pads are driven)."""
    if board.emulated or board.silicon is None:
        raise UsageError(f"energy is measured on silicon boards; {board.name} is emulated",
                         "profile on an Apollo board with a power instrument wired to it "
                         "(--board apollo510_evb --power; docs/apollo-boards.md)")
    if board.silicon.power_gpios is None or not board.silicon.hal_library:
        raise UsageError(f"{board.name} has no power GPIOs hpx drives",
                         "measure on a board whose power GPIOs are listed (hpx boards; "
                         "docs/apollo-boards.md, \"Energy\")")


def find_instrument(serial: str | None, driver: Any | None = None) -> str:
    """The attached instrument's device path (the one with ``serial``, or the only one); the
    HpxError of the driver or instrument missing."""
    opened = driver if driver is not None else load_driver()()
    try:
        return choose(instruments(opened), serial)
    finally:
        if driver is None:
            opened.finalize()
