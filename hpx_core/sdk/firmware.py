"""What an engine's firmware is built for and with: the board and its memory map, the
toolchain (its CMake toolchain file is the engine libraries' too), the memory kinds the plan
places arenas and weights in by default, and the symbols a linked ELF defines."""

from __future__ import annotations

from hpx_core.boards import Board, all_boards
from hpx_core.firmware import Toolchain, get_toolchain, symbol_inventory
from hpx_core.firmware.placement import ARENA_USES, WEIGHTS_USES

__all__ = [
    "ARENA_USES",
    "WEIGHTS_USES",
    "Board",
    "Toolchain",
    "all_boards",
    "get_toolchain",
    "symbol_inventory",
]
