"""hpx's pyOCD agent: runs on a place's exporter host, inside labgrid's agent process.

labgrid's agent (``labgrid/util/agent.py``) receives this file's source, runs it, and calls the
functions in ``methods`` with JSON arguments, one request per line over ssh. It uses only the
standard library and pyOCD, because the exporter host has no hpx. It is a thin remote pyOCD:
open a session on one probe, flash, reset, read and write target memory, say where the core
is. The logic (which probe, RTT, hangs, timeouts) stays in hpx's probe runner, which drives
this through :mod:`hpx_core.farm.probe_remote`; the probe's I/O happens here, next to the USB.
"""

from __future__ import annotations

import base64
import contextlib
import tempfile
from pathlib import Path
from typing import Any

_open: dict[str, Any] = {}  # "session": the one pyOCD session this agent holds


def version() -> str:
    """pyOCD's version here (an ImportError when this Python has no pyOCD)."""
    import pyocd

    return str(getattr(pyocd, "__version__", "unknown"))


def probes() -> list[dict[str, str]]:
    """The probes attached to this host, without waiting for one."""
    from pyocd.core.helpers import ConnectHelper

    return [{"unique_id": str(p.unique_id), "description": str(p.description),
             "vendor_name": str(getattr(p, "vendor_name", "") or ""),
             "product_name": str(getattr(p, "product_name", "") or "")}
            for p in ConnectHelper.get_all_connected_probes(blocking=False)]


def open_session(unique_id: str, options: dict[str, Any]) -> dict[str, str]:
    """Open a session on probe ``unique_id``; ``{"error": kind, ...}`` when it cannot.

    pyocd makes the target when it makes the session, so an unknown target fails there,
    before ``open()``; a session that fails to open is closed, so the probe is not held.
    """
    from pyocd.core.exceptions import Error, TargetSupportError
    from pyocd.core.helpers import ConnectHelper

    close_session()
    session = None
    try:
        session = ConnectHelper.session_with_chosen_probe(
            blocking=False, unique_id=unique_id, auto_open=False, options=options)
        if session is None:
            return {"error": "gone", "message": f"probe {unique_id} went away"}
        session.open()
    except TargetSupportError as error:
        _close(session)
        return {"error": "target_support", "message": str(error)}
    except Error as error:
        _close(session)
        return {"error": "probe", "message": str(error)}
    _open["session"] = session
    return {}


def _close(session: Any) -> None:
    if session is not None:
        with contextlib.suppress(Exception):  # the opening error is the one to report
            session.close()


def _session() -> Any:
    if "session" not in _open:
        raise RuntimeError("no pyOCD session is open")
    return _open["session"]


def close_session() -> None:
    session = _open.pop("session", None)
    if session is not None:
        session.close()


def flash(name: str, data: str) -> None:
    """Program the ELF ``data`` (base85) with pyOCD's FileProgrammer."""
    from pyocd.flash.file_programmer import FileProgrammer

    with tempfile.TemporaryDirectory(prefix="hpx-flash-") as folder:
        path = Path(folder) / Path(name).name
        path.write_bytes(base64.b85decode(data))
        FileProgrammer(_session()).program(str(path), file_format="elf")


def reset() -> None:
    _session().target.reset()


def halt() -> None:
    _session().target.halt()


def resume() -> None:
    _session().target.resume()


def state() -> str:
    found = _session().target.get_state()
    return str(getattr(found, "name", found))


def register(name: str) -> int:
    return int(_session().target.read_core_register(name))


def read(address: int, size: int) -> str:
    """``size`` bytes of target memory at ``address``, base85."""
    return base64.b85encode(bytes(_session().target.read_memory_block8(address, size))).decode()


def read32(address: int) -> int:
    """One 32-bit read (a peripheral register takes no byte reads)."""
    return int(_session().target.read32(address))


def write32(address: int, value: int) -> None:
    _session().target.write32(address, value)


methods = {
    "version": version, "probes": probes, "open_session": open_session,
    "close_session": close_session, "flash": flash, "reset": reset, "halt": halt,
    "resume": resume, "state": state, "register": register, "read": read, "read32": read32,
    "write32": write32,
}
