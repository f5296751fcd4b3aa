"""Which way a run reaches the part behind a probe, and what that way still lacks.

The Apollo parts' MRAM is flashed the way Ambiq's own tools do it (the pinned SDK's
cmake/segger, Ambiq's profiler, Zephyr's Ambiq boards): through SEGGER J-Link's own device
support, which knows each part by its J-Link device name. pyocd has no built-in target for
them (only the Apollo3 Blue, ``ama3b1kk_kbr``) and needs Ambiq's CMSIS pack. So:

- a pack given with ``--pack`` (or the farm place's ``pack``) means pyocd with that pack;
- otherwise a J-Link probe (every EVB carries one) takes the J-Link path, through pylink, with
  the board's ``jlink_device``;
- any other probe (CMSIS-DAP, ST-Link) takes pyocd with the board's ``pyocd_target``, which
  needs the pack unless pyocd already knows the part.

``hpx doctor`` reports the same choice for each attached probe.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import Board
from hpx_core.probe.probes import ProbeInfo

JLINK = "jlink"
PYOCD = "pyocd"
JLINK_SOFTWARE = "SEGGER J-Link Software (https://www.segger.com/downloads/jlink)"


@attrs.frozen
class Route:
    """``path`` (jlink or pyocd), the part's ``device`` name on it, why, and what is missing."""

    path: str
    device: str
    why: str
    missing: tuple[str, ...] = ()


def is_jlink(probe: ProbeInfo) -> bool:
    """A SEGGER J-Link (pyocd reports its vendor as Segger)."""
    text = f"{probe.vendor} {probe.product} {probe.description}".lower()
    return "segger" in text or "j-link" in text


def choose_route(board: Board, probe: ProbeInfo, packs: Sequence[Path], *, jlink: bool,
                 pyocd_knows: Callable[[str], bool] | None = None) -> Route:
    """The path a run on ``board`` through ``probe`` takes (see the module docstring).
    ``jlink``: SEGGER's J-Link library loads; ``pyocd_knows`` (for ``hpx doctor``) names
    what the pyocd path lacks."""
    silicon = board.silicon
    assert silicon is not None
    if packs:
        return Route(PYOCD, silicon.pyocd_target, f"the CMSIS pack {Path(packs[0]).name} was given")
    if is_jlink(probe) and silicon.jlink_device and jlink:
        return Route(JLINK, silicon.jlink_device,
                     "a J-Link probe: SEGGER's device support flashes the part")
    missing: tuple[str, ...] = ()
    if is_jlink(probe) and not jlink:
        missing += (JLINK_SOFTWARE,)
    if pyocd_knows is not None and not pyocd_knows(silicon.pyocd_target):
        missing += (f"Ambiq's CMSIS pack for {silicon.pyocd_target} (--pack PATH, or "
                    f"`pyocd pack install {silicon.pyocd_target}`)",)
    return Route(PYOCD, silicon.pyocd_target,
                 f"a {probe.product or probe.description} probe: pyocd flashes with the part's "
                 "CMSIS pack", missing)


def _normal(name: str) -> str:
    return name.lower().replace("-", "_")


def pyocd_knows(target: str) -> bool:
    """pyocd has ``target`` built in or from a pack it manages (`pyocd pack install`)."""
    try:
        from pyocd.target import TARGET
        from pyocd.target.pack.pack_target import ManagedPacks
    except ImportError:
        return False
    if _normal(target) in TARGET:
        return True
    try:
        installed = ManagedPacks.get_installed_targets()
    except Exception:  # the pack index may be absent or unreadable: then pyocd knows none
        return False
    return any(_normal(str(device.part_number)) == _normal(target) for device in installed)


def pylink_module() -> Any | None:
    """pylink (installed with pyocd), or None."""
    try:
        return importlib.import_module("pylink")
    except ImportError:
        return None


def jlink_software(pylink: Any | None = None) -> str | None:
    """The version of SEGGER's J-Link library pylink loads, or None when it finds none."""
    module = pylink if pylink is not None else pylink_module()
    if module is None:
        return None
    try:
        return str(module.JLink().version)
    except Exception:  # pylink raises TypeError when it finds no J-Link library
        return None


@attrs.frozen
class ProbeDesk:
    """What ``hpx doctor`` sees of the probes: those attached, pyocd's and J-Link's versions
    (None: not installed), whether pyocd knows a part, and why listing failed if it did."""

    probes: tuple[ProbeInfo, ...]
    pyocd: str | None
    jlink: str | None
    pyocd_knows: Callable[[str], bool]
    error: str = ""


def attached_desk() -> ProbeDesk:
    """The probes attached to this machine and the probe software installed."""
    from hpx_core.errors import HpxError
    from hpx_core.probe.probes import list_probes
    from hpx_core.probe.pyocd_api import pyocd_api

    jlink = jlink_software()
    try:
        api = pyocd_api()
    except HpxError as error:
        return ProbeDesk((), None, jlink, lambda _: False, error.message)
    try:
        return ProbeDesk(list_probes(api), api.version, jlink, pyocd_knows)
    except HpxError as error:
        return ProbeDesk((), api.version, jlink, pyocd_knows, error.message)


@attrs.frozen
class ProbeLine:
    """One line of ``hpx doctor``: a probe, a board, the route and what it lacks."""

    probe: ProbeInfo
    board: str
    route: Route

    def detail(self) -> str:
        text = (f"{self.board}: {self.route.path} (device {self.route.device}) - "
                f"{self.route.why}")
        return text + (f"; missing: {'; '.join(self.route.missing)}" if self.route.missing
                       else "")


def route_lines(desk: ProbeDesk, boards: Sequence[Board]) -> list[ProbeLine]:
    """The route each attached probe would take to each of ``boards``."""
    return [ProbeLine(probe, board.name,
                      choose_route(board, probe, (), jlink=desk.jlink is not None,
                                   pyocd_knows=desk.pyocd_knows))
            for probe in desk.probes for board in boards if board.silicon is not None]
