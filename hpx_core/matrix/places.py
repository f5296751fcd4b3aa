"""The board farm places a matrix spreads its runs over.

A matrix with a ``place`` (``any``, a place's name, or ``KEY=VALUE,...``) asks labgrid's
coordinator, once before any cell starts, which places hpx could use for each of its boards,
the way ``hpx profile --place`` chooses (:class:`~hpx_core.farm.places.PlaceChoice`). Every
such place becomes a resource of its board's runs (:mod:`.resources`); a board without one runs
its cells here as usual. A place someone else holds when a cell takes it is waited for like
``hpx profile --place NAME`` waits (``farm.wait``).
"""

from __future__ import annotations

from hpx_core.boards import get_board
from hpx_core.errors import FarmError
from hpx_core.farm.client import coordinator_address, farm_client, require_labgrid
from hpx_core.farm.places import RESOURCE_FOR_RUNNER, PlaceChoice
from hpx_core.matrix.plan import MatrixPlan


def places_by_board(plan: MatrixPlan) -> dict[str, tuple[str, ...]]:
    """Board -> the places that run its cells (empty when the plan names no place); a
    FarmError when the coordinator cannot be reached or no board of the matrix has a place."""
    if plan.place is None:
        return {}
    choice = PlaceChoice.parse(plan.place)
    require_labgrid()
    client = farm_client(coordinator_address(plan.farm.coordinator))
    boards = dict.fromkeys(p.cell.board for p in plan.cells if not p.cell.build_only)
    # The coordinator answers now (or this raises): a FarmError below is about a board.
    client.places()
    found: dict[str, tuple[str, ...]] = {}
    for name in boards:
        board = get_board(name)
        if board.runner not in RESOURCE_FOR_RUNNER:
            continue
        try:
            found[name] = tuple(state.name for state in choice.candidates(client, board))
        except FarmError:
            if not client.connected:
                raise  # the coordinator went away: no answer about this board
            continue  # not for this board: its cells run here
    if boards and not found:
        raise FarmError(f"no place {plan.place!r} at {client.address} runs a board of "
                        f"matrix {plan.name} ({', '.join(boards)})",
                        "`hpx places --all` shows the places and why hpx could not use some")
    return found
