"""One labgrid coordinator session per process and coordinator, on an event loop of its own.

labgrid's client is asyncio and allows one session per process and coordinator. hpx runs that
session's loop in a daemon thread, so place and resource updates keep arriving while a run is
in progress (a lost exporter or coordinator is noticed mid-run) and any thread may ask the
coordinator something through :meth:`FarmClient.call`. labgrid is imported only here and only
when a farm is used: it is an optional dependency.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

import attrs

from hpx_core.errors import FarmError

DEFAULT_COORDINATOR = "127.0.0.1:20408"
"""labgrid's own default, used when neither the config nor ``LG_COORDINATOR`` names one."""
ANSWER_TIMEOUT = 30.0
INSTALL_HINT = 'install it: pip install "hpx-core[labgrid]"'

T = TypeVar("T")


def require_labgrid() -> None:
    """labgrid's client, or a FarmError saying how to get it."""
    try:
        import labgrid.remote.client  # noqa: F401
    except ImportError as error:
        raise FarmError(f"board farms need labgrid, which is not installed ({error})",
                        INSTALL_HINT) from None


class _LabgridOnly(logging.Filter):
    """Drops what labgrid logs on the root logger (hpx words those failures itself)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return f"{os.sep}labgrid{os.sep}" not in record.pathname


_QUIET = _LabgridOnly()


def coordinator_address(configured: str | None = None) -> str:
    """The configured address, else labgrid's ``LG_COORDINATOR``, else labgrid's default."""
    return configured or os.environ.get("LG_COORDINATOR") or DEFAULT_COORDINATOR


@attrs.frozen
class Resource:
    """One resource an exporter offers, as the coordinator knows it now."""

    exporter: str
    group: str
    cls: str
    name: str
    params: Mapping[str, Any]
    avail: bool
    acquired: str | None  # the place holding it
    extra: Mapping[str, Any] = attrs.field(factory=dict)  # the exporter's proxy settings

    @property
    def host(self) -> str | None:
        """The machine it is on, as clients reach it."""
        value = self.params.get("host") or self.params.get("address")
        return str(value) if value else None

    @property
    def path(self) -> str:
        return f"{self.exporter}/{self.group}/{self.cls}/{self.name}"


@attrs.frozen
class PlaceState:
    """A place as the coordinator knows it now: its tags, holder and the resources it finds.

    ``lost`` names the resources the place holds whose exporter went away (labgrid keeps
    them acquired, "orphaned", until the place is released).
    """

    name: str
    tags: Mapping[str, str]
    comment: str
    matches: tuple[str, ...]
    holder: str | None  # "host/user"
    reservation: str | None
    resources: tuple[Resource, ...]
    lost: tuple[str, ...] = ()


class FarmClient:
    """A live session with one coordinator; every method may be called from any thread."""

    def __init__(self, address: str) -> None:
        require_labgrid()
        logging.getLogger().addFilter(_QUIET)  # once: a filter is kept only once
        self.address = address
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name=f"labgrid {address}")
        self._thread.start()
        try:
            self._session: Any = self.call(self._start, timeout=ANSWER_TIMEOUT)
        except BaseException:
            self._stop_loop()
            raise
        self.identity = f"{self._session.gethostname()}/{self._session.getuser()}"

    async def _start(self) -> Any:
        from labgrid.remote.client import ClientSession, Error

        session = ClientSession(self.address, asyncio.get_running_loop())
        try:
            await session.start()
        except Error:
            await session.close()
            raise FarmError(
                f"cannot reach the labgrid coordinator at {self.address}",
                "start it (labgrid-coordinator), or name where it runs with LG_COORDINATOR "
                "or farm.coordinator",
            ) from None
        return session

    # talking to the coordinator ---------------------------------------------------------------
    def call(self, work: Callable[[], Coroutine[Any, Any, T]], *,
             timeout: float = ANSWER_TIMEOUT) -> T:
        """Run ``work()`` on the session's loop and wait for its answer."""
        if not self._thread.is_alive():
            raise FarmError(f"the session with the coordinator at {self.address} is closed", "")
        future = asyncio.run_coroutine_threadsafe(work(), self._loop)
        try:
            return future.result(timeout)
        except FutureTimeout:
            future.cancel()
            raise FarmError(f"the coordinator at {self.address} did not answer within "
                            f"{timeout:g} s", "check that it runs and is reachable") from None

    def rpc(self, method: str, request: Any) -> Any:
        """One coordinator call by name (``AcquirePlace``, ...), then a sync so this session's
        view of places and resources includes its effect."""
        import grpc

        async def work() -> Any:
            try:
                answer = await getattr(self._session.stub, method)(request)
            except grpc.aio.AioRpcError as error:
                raise self._rpc_error(method, error) from None
            await self._session.sync_with_coordinator()
            return answer

        return self.call(work)

    def _rpc_error(self, method: str, error: Any) -> FarmError:
        import grpc

        if error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
            return FarmError(f"lost the labgrid coordinator at {self.address} ({method})",
                             "check that it still runs; places it had lent are free again "
                             "once it restarts")
        return FarmError(f"the coordinator refused {method}: {error.details()}", "")

    @property
    def connected(self) -> bool:
        """False once the coordinator's stream has ended (it stopped or the network failed)."""
        return self._thread.is_alive() and not self._session.stopping.is_set()

    # what the coordinator knows ---------------------------------------------------------------
    def places(self) -> dict[str, PlaceState]:
        """Every place, with the resources its matches find now."""
        return self.call(self._snapshot)

    async def _snapshot(self) -> dict[str, PlaceState]:
        session = self._session
        if not session.stopping.is_set():
            await session.sync_with_coordinator()
        if session.stopping.is_set():
            raise self._lost()
        resources = _resources(session.resources)
        return {name: _place_state(place, resources) for name, place in session.places.items()}

    def _lost(self) -> FarmError:
        return FarmError(f"lost the labgrid coordinator at {self.address}",
                         "check that it still runs")

    # closing ----------------------------------------------------------------------------------
    def close(self) -> None:
        """End the session (places it holds stay held: labgrid ties them to host/user)."""
        if not self._thread.is_alive():
            return

        async def work() -> None:
            await self._session.stop()
            await self._session.close()

        try:
            self.call(work, timeout=5.0)
        except FarmError:
            pass
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5.0)


def _resources(known: Mapping[str, Any]) -> dict[tuple[str, str, str], Resource]:
    found: dict[tuple[str, str, str], Resource] = {}
    for exporter, groups in known.items():
        for group, entries in groups.items():
            for name, entry in entries.items():
                if "cls" not in entry.data:  # deleted: its exporter went away
                    continue
                found[(exporter, group, name)] = Resource(
                    exporter, group, entry.cls, name, dict(entry.args), bool(entry.avail),
                    entry.acquired, dict(entry.extra))
    return found


def _place_state(place: Any, resources: Mapping[tuple[str, str, str], Resource]) -> PlaceState:
    if place.acquired:
        held = [tuple(path) for path in place.acquired_resources]
        mine = tuple(resources[(e, g, n)] for e, g, _c, n in held if (e, g, n) in resources)
        lost = tuple("/".join(p) for p in held if (p[0], p[1], p[3]) not in resources)
    else:
        mine = tuple(r for r in resources.values()
                     if place.hasmatch((r.exporter, r.group, r.cls, r.name)))
        lost = ()
    return PlaceState(
        name=place.name, tags=dict(place.tags), comment=place.comment or "",
        matches=tuple(repr(m) for m in place.matches), holder=place.acquired or None,
        reservation=place.reservation or None, resources=mine, lost=lost,
    )


_clients: dict[str, FarmClient] = {}
_clients_lock = threading.Lock()


def farm_client(address: str) -> FarmClient:
    """The process's session with the coordinator at ``address`` (opened on first use)."""
    with _clients_lock:
        client = _clients.get(address)
        if client is None or not client.connected:
            if client is not None:
                client.close()
            client = _clients[address] = FarmClient(address)
        return client


@atexit.register
def close_clients() -> None:
    """End every session this process opened."""
    with _clients_lock:
        for client in _clients.values():
            client.close()
        _clients.clear()
