"""What cells compete for: build slots, emulators, and physical boards.

App builds (and engine-library builds) share a pool sized by the cores and the free memory;
emulated runs share a pool sized by the cores (QEMU runs one core per board); a physical board
runs one cell at a time. A :class:`BoardResource` is that last kind: today there is one per
board name (the one board on the bench); a lab with several boards of one kind (labgrid places)
provides its own :class:`BoardPool` that hands out a free place for a board name.
"""

from __future__ import annotations

import os
import threading
from typing import Protocol

import attrs
import psutil

from hpx_core.boards import get_board

BUILD_MEMORY = 1536 * 2**20
"""Bytes one app or engine-library build may take (measured builds stay well below)."""
POLL_S = 0.2


class Slots:
    """A pool of interchangeable slots; taking one can be abandoned when the matrix stops."""

    def __init__(self, name: str, size: int) -> None:
        """``name`` says what one slot is, for "waiting for ..." ("a build slot")."""
        self.name = name
        self.size = max(1, size)
        self._free = threading.BoundedSemaphore(self.size)

    def take(self, stop: threading.Event) -> bool:
        """Wait for a slot; False (and no slot) when ``stop`` is set first."""
        while not stop.is_set():
            if self._free.acquire(timeout=POLL_S):
                return True
        return False

    def try_take(self) -> bool:
        return self._free.acquire(blocking=False)

    def give_back(self) -> None:
        self._free.release()


@attrs.frozen
class BoardResource:
    """A physical board that runs one cell at a time."""

    name: str
    slots: Slots


class BoardPool(Protocol):
    """Hands out the resource a cell on ``board`` runs on."""

    def resource_for(self, board: str) -> BoardResource: ...


class OnePerBoard:
    """One resource per board name: every cell on that board takes turns."""

    def __init__(self) -> None:
        self._boards: dict[str, BoardResource] = {}
        self._lock = threading.Lock()

    def resource_for(self, board: str) -> BoardResource:
        with self._lock:
            if board not in self._boards:
                self._boards[board] = BoardResource(board, Slots(f"the board {board}", 1))
            return self._boards[board]


@attrs.frozen
class Resources:
    """The pools one matrix run shares among its cells."""

    builds: Slots
    emulators: Slots
    boards: BoardPool

    def runner_for(self, board: str) -> Slots:
        """What the run stage of a cell on ``board`` takes: an emulator, or the board itself."""
        return self.emulators if get_board(board).emulated else self.boards.resource_for(
            board).slots


def machine_resources(boards: BoardPool | None = None) -> Resources:
    """Pools sized for this machine: builds by cores and free memory, emulators by cores."""
    cores = os.cpu_count() or 1
    by_memory = int(psutil.virtual_memory().available // BUILD_MEMORY)
    return Resources(Slots("a build slot", min(cores, by_memory)), Slots("an emulator", cores),
                     boards or OnePerBoard())
