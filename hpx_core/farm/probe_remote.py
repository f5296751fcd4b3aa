"""pyOCD on an exporter host, in the shape of the pyOCD hpx's probe runner uses locally.

:func:`remote_pyocd` answers a :class:`~hpx_core.probe.pyocd_api.PyocdApi` whose
ConnectHelper, session, target and FileProgrammer forward each call to hpx's agent on the
exporter host (:mod:`hpx_core.farm.probe_agent`). The probe runner is the same code as for a
probe on the desk. A call that cannot reach the agent, or a ``guard`` naming trouble with the
place (asked at most once a second), raises :class:`~hpx_core.probe.probes.ProbeLinkError`,
which the runner turns into a stopped stream and a failed bundle.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from hpx_core.probe.probes import ProbeLinkError
from hpx_core.probe.pyocd_api import PyocdApi

Guard = Callable[[], str | None]
GUARD_EVERY = 1.0


class RemoteProbeError(Exception):
    """pyOCD failed on the exporter host (its ``pyocd.core.exceptions.Error``)."""


class RemoteTargetSupportError(RemoteProbeError):
    """pyOCD on the exporter host does not know the target (a pack is missing there)."""


@attrs.define
class AgentLink:
    """Calls into the agent: agent failures become pyOCD errors, a lost link a ProbeLinkError."""

    agent: Any  # labgrid AgentWrapper with hpx's module loaded
    module: str
    where: str  # "host (python)" for messages
    guard: Guard | None = None
    _checked: float = 0.0

    def __call__(self, method: str, *args: Any) -> Any:
        from labgrid.util.agentwrapper import AgentException

        self._check_guard()
        try:
            return self.agent.call(f"{self.module}.{method}", *args)
        except AgentException as error:
            raise RemoteProbeError(str(error)) from None
        except (OSError, ValueError, AttributeError) as error:  # the agent or its ssh is gone
            raise ProbeLinkError(f"lost hpx's pyOCD agent on {self.where} ({error})",
                                 "check the exporter host and the network") from None

    def _check_guard(self) -> None:
        now = time.monotonic()
        if self.guard is None or now - self._checked < GUARD_EVERY:
            return
        self._checked = now
        cause = self.guard()
        if cause is not None:
            raise ProbeLinkError(cause, "the run on the far probe was stopped")


@attrs.frozen
class _ProbeRecord:
    unique_id: str
    description: str
    vendor_name: str
    product_name: str


@attrs.frozen
class _State:
    name: str


@attrs.frozen
class _Target:
    call: AgentLink

    def read_memory_block8(self, addr: int, size: int) -> list[int]:
        return list(base64.b85decode(self.call("read", addr, size)))

    def read32(self, addr: int) -> int:
        return int(self.call("read32", addr))

    def write32(self, addr: int, value: int) -> None:
        self.call("write32", addr, value)

    def reset(self, reset_type: Any = None) -> None:
        self.call("reset")

    def halt(self) -> None:
        self.call("halt")

    def resume(self) -> None:
        self.call("resume")

    def get_state(self) -> _State:
        return _State(self.call("state"))

    def read_core_register(self, reg: str) -> int:
        return int(self.call("register", reg))


@attrs.frozen
class _Session:
    """pyocd's Session, opened by ``open()`` or, with ``auto_open``, on entering a ``with``
    block, as pyocd's own (never when it is made)."""

    call: AgentLink
    unique_id: str
    options: dict[str, Any]
    auto_open: bool = True

    @property
    def target(self) -> _Target:
        return _Target(self.call)

    def open(self, init_board: bool = True) -> None:
        answer = self.call("open_session", self.unique_id, self.options)
        if answer.get("error") == "target_support":
            raise RemoteTargetSupportError(answer["message"])
        if answer.get("error"):
            raise RemoteProbeError(answer["message"])

    def close(self) -> None:
        self.call("close_session")

    def __enter__(self) -> _Session:
        if self.auto_open:
            try:
                self.open()
            except Exception:
                self.close()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@attrs.frozen
class _ConnectHelper:
    call: AgentLink

    def get_all_connected_probes(self, blocking: bool = True, unique_id: str | None = None,
                                 print_wait_message: bool = True) -> list[_ProbeRecord]:
        return [_ProbeRecord(**p) for p in self.call("probes")]

    def session_with_chosen_probe(self, blocking: bool = True, return_first: bool = False,
                                  unique_id: str | None = None, auto_open: bool = True,
                                  options: dict[str, Any] | None = None,
                                  **kwargs: Any) -> _Session:
        return _Session(self.call, unique_id or "", dict(options or {}), auto_open)


@attrs.frozen
class _FileProgrammer:
    session: _Session

    def program(self, file_or_path: str, file_format: str | None = None, **kwargs: Any) -> None:
        path = Path(file_or_path)
        self.session.call("flash", path.name, base64.b85encode(path.read_bytes()).decode())


def remote_pyocd(call: AgentLink) -> PyocdApi:
    """The pyOCD API hpx's probe runner takes, answered by the agent behind ``call``."""
    return PyocdApi(_ConnectHelper(call), _FileProgrammer, RemoteProbeError,
                    RemoteTargetSupportError, version=str(call("version")))
