"""One debug session on the chosen probe, by the chosen path, and the reset handoff.

pyocd builds the board (and the target it names) when the session is made, so a target pyocd
does not know raises TargetSupportError there, before ``open()``; both are inside one ``try``
and either failure closes what was made, so the probe is never left held. Sessions are always
made with ``auto_open=False`` and opened here: pyocd's ``auto_open`` opens only in
``__enter__``.

The reset handoff is what the Apollo parts' secure bootloader needs: it holds the core while
a debugger that was attached at the reset stays attached. So the flashing session resets the
part and closes (the debugger lets go), the host waits the board's ``boot_handoff``, and the
capture session attaches without halting or resetting (pyocd's ``connect_mode=attach``; J-Link
connects without either). The bootloader's phase cannot be observed, so the attach is retried
until a deadline, as Ambiq's profiler retries its connect for 30 s after a 0.2 s settle.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import Board
from hpx_core.errors import RunError
from hpx_core.probe.probes import ProbeInfo
from hpx_core.probe.pyocd_api import PyocdApi
from hpx_core.probe.route import JLINK, JLINK_SOFTWARE, Route, is_jlink


class ConnectError(RunError):
    """The probe could not open a session to the part (it may still be booting)."""


def session_options(board: Board, route: Route, probe: ProbeInfo, packs: tuple[Path, ...], *,
                    attach: bool) -> dict[str, Any]:
    """pyocd's options for this route (the J-Link path takes the device name alone); a J-Link
    under pyocd is told the part's J-Link name too, so J-Link's own connect sequence runs."""
    if route.path == JLINK:
        return {}
    options: dict[str, Any] = {"target_override": route.device}
    if packs:
        options["pack"] = [str(p) for p in packs]
    if is_jlink(probe) and board.silicon is not None and board.silicon.jlink_device:
        options["jlink.device"] = board.silicon.jlink_device
    if attach:
        options["connect_mode"] = "attach"
    return options


def _unknown_target(route: Route, board: Board, packs: tuple[Path, ...],
                    error: Exception) -> RunError:
    if route.path == JLINK:
        return RunError(f"J-Link does not know device {route.device!r} ({error})",
                        f"update the {JLINK_SOFTWARE}: its device list must name {route.device}")
    hint = ("check that the pack given with --pack supports this part" if packs else
            "pass Ambiq's CMSIS pack with --pack PATH (AmbiqMicro Apollo DFP .pack), or use "
            "the EVB's J-Link")
    return RunError(f"pyocd does not know target {route.device!r} for {board.name} ({error})",
                    hint)


def open_session(link: PyocdApi, probe: ProbeInfo, board: Board, route: Route,
                 packs: tuple[Path, ...], *, attach: bool = False) -> Any:
    """An open session, or one RunError; nothing is left open when it fails."""
    options = session_options(board, route, probe, packs, attach=attach)
    session = None
    try:
        session = link.connect_helper.session_with_chosen_probe(
            blocking=False, unique_id=probe.unique_id, auto_open=False, options=options)
        if session is None:
            raise RunError(f"probe {probe.unique_id} went away", "reconnect it and run again")
        session.open()
    except link.target_support_error as error:
        _close_quietly(session, link)
        raise _unknown_target(route, board, packs, error) from None
    except link.error as error:
        _close_quietly(session, link)
        raise ConnectError(f"cannot connect through probe {probe.unique_id} ({route.path}): "
                           f"{error}", "check the board's power and the probe's cable") from None
    return session


def _close_quietly(session: Any, link: PyocdApi) -> None:
    if session is not None:
        with contextlib.suppress(link.error):  # the connection error is the one to report
            session.close()


@contextmanager
def opened(link: PyocdApi, probe: ProbeInfo, board: Board, route: Route,
           packs: tuple[Path, ...], *, attach: bool = False) -> Iterator[Any]:
    """:func:`open_session`, closed when the block ends."""
    session = open_session(link, probe, board, route, packs, attach=attach)
    try:
        yield session
    finally:
        session.close()


@attrs.frozen
class Patience:
    """How long the capture session's connect is retried after the bootloader hand-off,
    how long between tries, and the clock and sleep that measure it."""

    wait: float
    interval: float
    clock: Callable[[], float]
    sleep: Callable[[float], None]


def open_attached(link: PyocdApi, probe: ProbeInfo, board: Board, route: Route,
                  packs: tuple[Path, ...], patience: Patience) -> Any:
    """The capture session, attached without halting or resetting; a refused connect is
    retried until ``patience.wait`` has passed (an unknown target is not: it will not change)."""
    deadline = patience.clock() + patience.wait
    while True:
        try:
            return open_session(link, probe, board, route, packs, attach=True)
        except ConnectError as error:
            if patience.clock() >= deadline:
                raise ConnectError(f"{error.message}, still after {patience.wait:g} s of "
                                   "retries after the bootloader hand-off",
                                   "check the board's power and the probe's cable; a part "
                                   "that never lets a debugger in may need a power cycle"
                                   ) from None
        patience.sleep(patience.interval)


@contextmanager
def attached(link: PyocdApi, probe: ProbeInfo, board: Board, route: Route,
             packs: tuple[Path, ...], patience: Patience) -> Iterator[Any]:
    """:func:`open_attached`, closed when the block ends."""
    session = open_attached(link, probe, board, route, packs, patience)
    try:
        yield session
    finally:
        session.close()
