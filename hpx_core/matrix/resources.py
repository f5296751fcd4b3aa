"""What cells compete for: build slots, emulators, physical boards and board farm places.

App builds (and engine-library builds) share a pool sized by the cores and the free memory;
emulated runs share a pool sized by the cores (QEMU runs one core per board); a physical board
runs one cell at a time. A :class:`BoardResource` is that last kind, one per board name (the
one board on the bench). A board farm's place (:class:`PlaceSlot`) also runs one cell at a
time; a board with places has all of them as the resources of its cells' runs, and a cell
takes whichever is free, the least used first, so the cells spread over the places.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping, Sequence

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


class PlaceSlot(Slots):
    """A board farm's place: one cell at a time; counts the cells it was handed."""

    def __init__(self, place: str) -> None:
        super().__init__(f"place {place}", 1)
        self.place = place
        self.handed = 0
        self._count = threading.Lock()

    def take(self, stop: threading.Event) -> bool:
        return self._counted(super().take(stop))

    def try_take(self) -> bool:
        return self._counted(super().try_take())

    def _counted(self, taken: bool) -> bool:
        if taken:
            with self._count:
                self.handed += 1
        return taken


def take_one(options: Sequence[Slots], stop: threading.Event) -> Slots | None:
    """Wait for a slot of any of ``options`` (the first free in their order); None when
    ``stop`` is set first."""
    if len(options) == 1:
        return options[0] if options[0].take(stop) else None
    while not stop.is_set():
        taken = next((s for s in options if s.try_take()), None)
        if taken is not None:
            return taken
        stop.wait(POLL_S)
    return None


@attrs.frozen
class BoardResource:
    """A physical board that runs one cell at a time."""

    name: str
    slots: Slots


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
    """The pools one matrix run shares among its cells; ``places``: board -> its farm places."""

    builds: Slots
    emulators: Slots
    boards: OnePerBoard
    places: Mapping[str, tuple[PlaceSlot, ...]] = attrs.field(factory=dict)

    def runners_for(self, board: str) -> tuple[Slots, ...]:
        """What the run stage of a cell on ``board`` may take (any one of them): the board's
        places (the least used first), else an emulator or the board itself."""
        places = self.places.get(board)
        if places:
            return tuple(sorted(places, key=lambda p: p.handed))
        if get_board(board).emulated:
            return (self.emulators,)
        return (self.boards.resource_for(board).slots,)


def place_slots(places: Mapping[str, Iterable[str]]) -> dict[str, tuple[PlaceSlot, ...]]:
    """Board -> a slot per place name (one slot per place, whichever boards name it)."""
    slots: dict[str, PlaceSlot] = {}
    return {board: tuple(slots.setdefault(name, PlaceSlot(name)) for name in names)
            for board, names in places.items()}


def machine_resources(places: Mapping[str, Iterable[str]] | None = None) -> Resources:
    """Pools sized for this machine: builds by cores and free memory, emulators by cores;
    ``places`` (board -> place names) makes each place a resource of its board's runs."""
    cores = os.cpu_count() or 1
    by_memory = int(psutil.virtual_memory().available // BUILD_MEMORY)
    return Resources(Slots("a build slot", min(cores, by_memory)), Slots("an emulator", cores),
                     OnePerBoard(), place_slots(places or {}))
