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

import structlog

from hpx_core.boards import Board
from hpx_core.errors import FarmError
from hpx_core.farm.client import FarmClient, PlaceState
from hpx_core.farm.places import BOARD_TAG, check_fits, current_place, resource_for

log = structlog.get_logger(__name__)

Notify = Callable[[str], None]
REMIND_EVERY = 30.0


def log_note(message: str) -> None:
    """Where a farm's notes go when nobody listens: the log, as warnings."""
    log.warning("farm", note=message)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


class Lease:
    """``with Lease(...) as state:`` holds the place; :meth:`trouble` says when it is lost."""

    def __init__(self, client: FarmClient, place: str, board: Board, *, wait: float,
                 notify: Notify = log_note, poll: float = 0.5) -> None:
        self.client = client
        self.place = place
        self.board = board
        self.wait = wait
        self.notify = notify
        self.poll = poll
        self.token: str | None = None
        self.acquired = False
        self._previous_sigterm: Any = None

    # entering ---------------------------------------------------------------------------------
    def __enter__(self) -> PlaceState:
        check_fits(self.current(), self.board)
        self._trap_sigterm()
        try:
            self._reserve()
            self._wait_for_allocation()
            self._acquire()
            state = self.current()
            resource_for(state, self.board)  # no resources: its exporter is not connected
        except BaseException:
            self._end()
            raise
        return state

    def current(self) -> PlaceState:
        """The place as the coordinator knows it now."""
        return current_place(self.client, self.place)

    def _reserve(self) -> None:
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

        tags = {"name": self.place, BOARD_TAG: self.board.name}
        request = pb.CreateReservationRequest(
            filters={"main": pb.Reservation.Filter(filter=tags)}, prio=0.0)
        self.token = self.client.rpc("CreateReservation", request).reservation.token

    def _poll_reservation(self) -> tuple[str, list[str]]:
        """The reservation's state (waiting, allocated, acquired, ...) and its places."""
        from labgrid.remote.common import Reservation
        from labgrid.remote.generated import labgrid_coordinator_pb2 as pb

        answer = self.client.rpc("PollReservation", pb.PollReservationRequest(token=self.token))
        reservation = Reservation.from_pb2(answer.reservation)
        places = [p for group in reservation.allocations.values() for p in group]
        return str(reservation.state.name), places

    def _wait_for_allocation(self) -> None:
        started = time.monotonic()
        reminded: float | None = None  # when the user last heard about the wait
        while True:
            state, places = self._poll_reservation()
            if state in ("allocated", "acquired") and self.place in places:
                return
            if state in ("invalid", "expired"):
                raise FarmError(f"labgrid's reservation for place {self.place} became {state}",
                                "run again")
            waited = time.monotonic() - started
            holder = self._holder()
            if self.wait <= 0:
                raise FarmError(f"place {self.place} is busy ({holder})",
                                "run without --no-wait to wait for it; `hpx places` shows "
                                "who holds each place")
            if waited >= self.wait:
                raise FarmError(f"place {self.place} is still busy ({holder}) after "
                                f"{self.wait:g} s", "wait longer (--wait, farm.wait) or ask "
                                "its holder; `hpx places` shows who holds each place")
            if reminded is None:
                self.notify(f"place {self.place} is busy ({holder}); waiting up to "
                            f"{self.wait:g} s for it (--no-wait fails at once)")
                reminded = waited
            elif waited - reminded >= REMIND_EVERY:
                self.notify(f"still waiting for place {self.place} ({holder}); "
                            f"{self.wait - waited:.0f} s left")
                reminded = waited
            time.sleep(self.poll)

    def _holder(self) -> str:
        state = self.current()
        if state.holder:
            return f"held by {state.holder}"
        return "reserved for someone else" if state.reservation else "queued"

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
                self.acquired, self.token = False, None
                return
            if self.acquired:
                self.acquired = False
                self._quietly("ReleasePlace", pb.ReleasePlaceRequest(placename=self.place),
                              f"could not release place {self.place}",
                              f"free it: labgrid-client -p {self.place} release")
            if self.token is not None:
                token, self.token = self.token, None
                self._quietly("CancelReservation", pb.CancelReservationRequest(token=token),
                              f"could not cancel labgrid reservation {token}",
                              "it expires by itself within a minute")
        finally:
            self._restore_sigterm()

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
