"""Boards as data: emulated QEMU boards now, Apollo EVBs beside them later."""

from hpx_core.boards.model import Board, MemoryRegion, QemuSpec, SiliconSpec
from hpx_core.boards.registry import all_boards, get_board

__all__ = ["Board", "MemoryRegion", "QemuSpec", "SiliconSpec", "all_boards", "get_board"]
