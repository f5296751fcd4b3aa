"""Hold one labgrid place for a stretch of runs: reserve, wait if it is busy, acquire, release.

Waiting goes through labgrid's reservations (a filter on the place's name and board tag), so
hpx queues fairly with everyone else who reserves, and ``labgrid-client reservations`` shows
who waits. The place is released and the reservation cancelled on success, on failure, on
Ctrl-C and on SIGTERM (turned into the same interruption while a place is held). labgrid ties
a place to ``host/user``, not to a process: a process that is killed outright leaves the place
held until someone releases it (``labgrid-client -p PLACE release``).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any

from hpx_core.boards import Board
from hpx_core.errors import FarmError
from hpx_core.farm.client import FarmClient, PlaceState
from hpx_core.farm.places import (
    BOARD_TAG,
    PlaceChoice,
    check_fits,
    current_place,
    resource_for,
)
from hpx_core.log import get_logger

log = get_logger(__name__)

Notify = Callable[[str], None]
REMIND_EVERY = 30.0


def log_note(message: str) -> None:
    """Where a farm's notes go when nobody listens: the log, as warnings."""
    log.warning("farm", note=message)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


class Lease:
    """``with Lease(...) as state:`` holds a place; :meth:`trouble` says when it is lost.

    ``place`` names one place or is a :class:`PlaceChoice` of any place for the board; once
    held, :attr:`place` is the name of the place labgrid allocated.
    """

    def __init__(self, client: FarmClient, place: str | PlaceChoice, board: Board, *,
                 wait: float, notify: Notify = log_note, poll: float = 0.5) -> None:
        self.client = client
        self.choice = place if isinstance(place, PlaceChoice) else PlaceChoice(place)
        self.place = self.choice.name or ""
        self.board = board
        self.wait = wait
        self.notify = notify
        self.poll = poll
        self.tokens: dict[str, str] = {}  # place -> its labgrid reservation
        self.acquired = False
        self._previous_sigterm: Any = None

    # entering ---------------------------------------------------------------------------------
    def __enter__(self) -> PlaceState:
        candidates = self.choice.candidates(self.client, self.board)  # refusals come first
        self._trap_sigterm()
        try:
            self._reserve([c.name for c in candidates])
            self._wait_for_allocation()
            self._acquire()
            state = self.current()
            check_fits(state, self.board)
            resource_for(state, self.board)  # no resources: its exporter is not connected
        except BaseException:
            self._end()
            raise
        return state

    def current(self) -> PlaceState:
        """The held (or named) place as the coordinator knows it now."""
        return current_place(self.client, self.place)

    def _reserve(self, places: list[str]) -> None:
        """One reservation per place hpx could use (labgrid filters cannot say "one of"; a
        board filter alone could be given a place without the resource that runs it)."""
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

        for place in places:
            tags = {"name": place, BOARD_TAG: self.board.name}
            request = pb.CreateReservationRequest(
                filters={"main": pb.Reservation.Filter(filter=tags)}, prio=0.0)
            self.tokens[place] = self.client.rpc("CreateReservation", request).reservation.token

    def _allocated(self) -> str | None:
        """The first place labgrid allocated to one of the reservations, if any."""
        from labgrid.remote.common import Reservation
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

        for place, token in self.tokens.items():
            answer = self.client.rpc("PollReservation", pb.PollReservationRequest(token=token))
            reservation = Reservation.from_pb2(answer.reservation)
            state = reservation.state.name
            if state in ("allocated", "acquired"):
                return place
            if state in ("invalid", "expired"):
                raise FarmError(f"labgrid's reservation for place {place} became {state}",
                                "run again")
        return None

    def _wait_for_allocation(self) -> None:
        started = time.monotonic()
        reminded: float | None = None  # when the user last heard about the wait
        wanted = self.choice.describe(self.board)
        while (place := self._allocated()) is None:
            waited = time.monotonic() - started
            holders = self._holders()
            if self.wait <= 0:
                raise FarmError(f"{wanted} is busy ({holders})", "run without --no-wait to "
                                "wait; `hpx places` shows who holds each place")
            if waited >= self.wait:
                raise FarmError(f"{wanted} is still busy ({holders}) after {self.wait:g} s",
                                "wait longer (--wait, farm.wait) or ask its holder; "
                                "`hpx places` shows who holds each place")
            if reminded is None:
                self.notify(f"{wanted} is busy ({holders}); waiting up to {self.wait:g} s "
                            "for it (--no-wait fails at once)")
                reminded = waited
            elif waited - reminded >= REMIND_EVERY:
                self.notify(f"still waiting for {wanted} ({holders}); "
                            f"{self.wait - waited:.0f} s left")
                reminded = waited
            time.sleep(self.poll)
        self.place = place
        for other in [p for p in self.tokens if p != place]:  # free the others for others
            self._cancel(self.tokens.pop(other))

    def _holders(self) -> str:
        """Who has the wanted places: ``held by host/user`` (for several places, each named)."""
        states = self.choice.candidates(self.client, self.board)

        def holder(state: PlaceState) -> str:
            if state.holder:
                return f"held by {state.holder}"
            return "reserved for someone else" if state.reservation else "queued"

        if self.choice.name is not None:
            return holder(states[0])
        return "; ".join(f"{s.name} {holder(s)}" for s in states)

    def _acquire(self) -> None:
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

        self.client.rpc("AcquirePlace", pb.AcquirePlaceRequest(placename=self.place))
        self.acquired = True

    # while held -------------------------------------------------------------------------------
    def trouble(self) -> str | None:
        """Why the place can no longer be trusted for this run, or None while all is well."""
        if not self.client.connected:
            return f"lost the labgrid coordinator at {self.client.address}"
        try:
            state = self.current()
        except FarmError as error:
            return error.message
        if state.holder != self.client.identity:
            return (f"place {self.place} is no longer held by {self.client.identity} "
                    f"(held by {state.holder or 'nobody'})")
        if state.lost:
            exporters = sorted({path.split("/")[0] for path in state.lost})
            return (f"exporter {', '.join(exporters)} of place {self.place} disconnected "
                    f"from the coordinator ({', '.join(state.lost)} lost)")
        return None

    # leaving ----------------------------------------------------------------------------------
    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._end()

    def _end(self) -> None:
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

        try:
            if not self.client.connected:
                if self.acquired:
                    self.notify(f"could not release place {self.place}: lost the labgrid "
                                f"coordinator at {self.client.address} (a restarted coordinator "
                                "holds no place)")
                self.acquired = False
                self.tokens.clear()
                return
            if self.acquired:
                self.acquired = False
                self._quietly("ReleasePlace", pb.ReleasePlaceRequest(placename=self.place),
                              f"could not release place {self.place}",
                              f"free it: labgrid-client -p {self.place} release")
            while self.tokens:
                self._cancel(self.tokens.popitem()[1])
        finally:
            self._restore_sigterm()

    def _cancel(self, token: str) -> None:
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

        self._quietly("CancelReservation", pb.CancelReservationRequest(token=token),
                      f"could not cancel labgrid reservation {token}",
                      "it expires by itself within a minute")

    def _quietly(self, method: str, request: Any, what: str, hint: str) -> None:
        try:
            self.client.rpc(method, request)
        except FarmError as error:
            self.notify(f"{what}: {error.message}; {hint}")

    def _trap_sigterm(self) -> None:
        if threading.current_thread() is threading.main_thread():
            self._previous_sigterm = signal.signal(signal.SIGTERM, _interrupt)

    def _restore_sigterm(self) -> None:
        if self._previous_sigterm is not None:
            signal.signal(signal.SIGTERM, self._previous_sigterm)
            self._previous_sigterm = None
