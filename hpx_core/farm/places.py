"""Which labgrid places can run which board.

A place is for a board when its ``board`` tag names it and it matches the resource that runs
that kind of board: a ``NetworkService`` (an exporter host that runs QEMU) for an emulated
board, an ``HpxProbe`` (a debug probe on the exporter host) for silicon. Tags are the lab's
word; hpx checks them before it reserves anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase

import attrs

from hpx_core.boards import Board, all_boards
from hpx_core.errors import FarmError
from hpx_core.farm.client import FarmClient, PlaceState, Resource

BOARD_TAG = "board"
ANY = "any"
RESOURCE_FOR_RUNNER = {"qemu": "NetworkService", "probe": "HpxProbe"}


def current_place(client: FarmClient, name: str) -> PlaceState:
    """The place ``name`` as the coordinator knows it now, or an error listing the places."""
    places = client.places()
    if name not in places:
        known = ", ".join(sorted(places)) or "none"
        raise FarmError(f"the coordinator at {client.address} has no place {name}",
                        f"places there: {known} (`hpx places` shows those hpx can use)")
    return places[name]


def needed_resource(board: Board) -> str:
    """The resource class a place must offer to run ``board``."""
    try:
        return RESOURCE_FOR_RUNNER[board.runner]
    except KeyError:
        raise FarmError(f"board {board.name} cannot run on a farm place",
                        f"farm places run {', '.join(RESOURCE_FOR_RUNNER)} boards") from None


def _matches_class(state: PlaceState, cls: str) -> bool:
    return any(fnmatchcase(cls, pattern.split("/")[2]) for pattern in state.matches)


def check_fits(state: PlaceState, board: Board) -> None:
    """A FarmError unless ``state`` is tagged for ``board`` and matches what runs it."""
    tag = state.tags.get(BOARD_TAG)
    if tag is None:
        raise FarmError(f"place {state.name} has no {BOARD_TAG} tag",
                        f"tag it: labgrid-client -p {state.name} set-tags {BOARD_TAG}={board.name}")
    if tag != board.name:
        raise FarmError(f"place {state.name} is for board {tag}, not {board.name}",
                        f"choose a place for {board.name} (`hpx places --board {board.name}`)")
    cls = needed_resource(board)
    if not _matches_class(state, cls):
        raise FarmError(
            f"place {state.name} matches no {cls} resource, which runs {board.name}",
            f"add one: labgrid-client -p {state.name} add-match EXPORTER/GROUP/{cls}")


def resource_for(state: PlaceState, board: Board) -> Resource:
    """The resource that runs ``board`` at ``state``, or why there is none."""
    cls = needed_resource(board)
    found = [r for r in state.resources if r.cls == cls]
    if not found:
        gone = f" ({', '.join(state.lost)} lost)" if state.lost else ""
        raise FarmError(f"place {state.name} has no {cls} resource now{gone}",
                        "its exporter is not connected to the coordinator; start it "
                        "(labgrid-exporter) or choose another place")
    if len(found) > 1:
        raise FarmError(f"place {state.name} has {len(found)} {cls} resources",
                        "give it exactly one (labgrid-client -p PLACE delete-match / add-match)")
    return found[0]


@attrs.frozen
class PlaceRow:
    """A place as ``hpx places`` shows it: for which board, and whether a run could use it."""

    state: PlaceState
    board: str | None
    status: str
    usable: bool

    @property
    def hosts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f"{r.exporter} ({r.host})" if r.host else r.exporter
                                   for r in self.state.resources))


def _row(state: PlaceState, boards: dict[str, Board]) -> PlaceRow:
    tag = state.tags.get(BOARD_TAG)
    board = boards.get(tag) if tag else None
    try:
        if tag is None:
            raise FarmError(f"place {state.name} has no {BOARD_TAG} tag", "")
        if board is None:
            raise FarmError(f"place {state.name} is for board {tag}, which hpx does not know",
                            "")
        check_fits(state, board)
        if state.lost:
            raise FarmError(f"exporter gone ({', '.join(state.lost)})", "")
        resource_for(state, board)
    except FarmError as error:
        return PlaceRow(state, tag, error.message, False)
    status = f"held by {state.holder}" if state.holder else "free"
    return PlaceRow(state, tag, status, True)


def list_places(client: FarmClient, board: str | None = None, *,
                every: bool = False) -> tuple[PlaceRow, ...]:
    """The places hpx could use (``every``: all places, with why hpx could not use some),
    for ``board`` only when given, sorted by name."""
    boards = all_boards()
    rows = [_row(state, boards) for _, state in sorted(client.places().items())]
    return tuple(r for r in rows
                 if (every or r.usable) and (board is None or r.board == board))


def places_for(client: FarmClient, board: Board) -> tuple[PlaceState, ...]:
    """Every place that could run ``board`` now (free or held), with its tags: what a
    scheduler spreads runs over."""
    return tuple(row.state for row in list_places(client, board.name))


@attrs.frozen
class PlaceChoice:
    """The place a run asks for: one by ``name``, or (``name`` None) any place for the board
    whose tags include ``tags``; labgrid's reservations then pick a free one."""

    name: str | None
    tags: Mapping[str, str] = attrs.field(factory=dict)

    @classmethod
    def parse(cls, text: str) -> PlaceChoice:
        """``NAME``, ``any``, or ``KEY=VALUE[,KEY=VALUE...]`` (any place with those tags)."""
        if text == ANY:
            return cls(None)
        if "=" not in text:
            return cls(text)
        pairs = [item.partition("=") for item in text.split(",")]
        if any(not key or not sep or not value for key, sep, value in pairs):
            raise FarmError(f"place {text!r} is neither a name nor KEY=VALUE,...",
                            "e.g. --place evb-510, --place any, --place owner=ml-team")
        return cls(None, {key.strip(): value.strip() for key, _, value in pairs})

    def _with(self) -> str:
        tags = " ".join(f"{k}={v}" for k, v in sorted(self.tags.items()))
        return f" with {tags}" if tags else ""

    def describe(self, board: Board) -> str:
        if self.name is not None:
            return f"place {self.name}"
        return f"every place for {board.name}{self._with()}"

    def filter(self, board: Board) -> dict[str, str]:
        """The reservation filter: the place's implicit ``name`` tag, or the tags; the board."""
        base = {"name": self.name} if self.name is not None else dict(self.tags)
        return base | {BOARD_TAG: board.name}

    def candidates(self, client: FarmClient, board: Board) -> tuple[PlaceState, ...]:
        """The places this choice may get: the named one (checked), or every usable place for
        ``board`` with the tags; a FarmError when there is none."""
        if self.name is not None:
            state = current_place(client, self.name)
            check_fits(state, board)
            return (state,)
        found = tuple(p for p in places_for(client, board)
                      if all(p.tags.get(k) == v for k, v in self.tags.items()))
        if not found:
            raise FarmError(f"no place hpx could use is for {board.name}{self._with()}",
                            f"`hpx places --all --board {board.name}` shows the places and why")
        return found
