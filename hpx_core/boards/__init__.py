"""Boards as data: emulated QEMU boards now, Apollo EVBs beside them later."""

from hpx_core.boards.model import Board, MemoryRegion, QemuSpec
from hpx_core.boards.registry import all_boards, get_board

__all__ = ["Board", "MemoryRegion", "QemuSpec", "all_boards", "get_board"]
