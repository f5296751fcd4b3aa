"""The one place that chooses how firmware runs on a board."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hpx_core.boards import Board
from hpx_core.errors import RunError
from hpx_core.run.runner import Runner

if TYPE_CHECKING:
    from hpx_core.config.schema import FarmSection
    from hpx_core.farm.lease import Notify
    from hpx_core.probe.power_run import PowerRun
    from hpx_core.probe.pyocd_api import PyocdApi


def runner_for(
    board: Board,
    *,
    timeout: float = 600.0,
    probe: str | None = None,
    packs: Sequence[Path] = (),
    api: PyocdApi | None = None,
    place: str | None = None,
    farm: FarmSection | None = None,
    notify: Notify | None = None,
    power: PowerRun | None = None,
) -> Runner:
    """A board farm's place when one is named (labgrid, loaded only then); else QEMU for an
    emulated board and the debug probe (pyocd, loaded only here) for silicon, with ``power``
    recording the energy windows."""
    if place is not None:
        return _place_runner(board, place, timeout, farm, notify)
    if board.runner == "qemu":
        from hpx_core.run.qemu import QemuRunner

        return QemuRunner(board, timeout)
    if board.runner == "probe":
        from hpx_core.probe.runner import ProbeRunner, ProbeSettings

        return ProbeRunner(board, ProbeSettings(timeout=timeout, packs=tuple(packs)), probe, api,
                           power=power)
    raise RunError(f"board {board.name} has no runner {board.runner!r}",
                   "boards.toml names qemu or probe")


def _place_runner(board: Board, place: str, timeout: float, farm: FarmSection | None,
                  notify: Notify | None) -> Runner:
    from hpx_core.config.schema import FarmSection
    from hpx_core.farm.client import require_labgrid
    from hpx_core.farm.places import needed_resource
    from hpx_core.farm.runner import PlaceRunner

    require_labgrid()
    needed_resource(board)
    runner = PlaceRunner(board, place, farm or FarmSection(), timeout)
    if notify is not None:
        runner.notify = notify
    return runner
