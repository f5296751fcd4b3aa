"""The one place that chooses how firmware runs on a board."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hpx_core.boards import Board
from hpx_core.errors import RunError
from hpx_core.run.runner import Runner

if TYPE_CHECKING:
    from hpx_core.probe.pyocd_api import PyocdApi


def runner_for(
    board: Board,
    *,
    timeout: float = 600.0,
    probe: str | None = None,
    packs: Sequence[Path] = (),
    api: PyocdApi | None = None,
) -> Runner:
    """QEMU for an emulated board, the debug probe (pyocd, loaded only here) for silicon."""
    if board.runner == "qemu":
        from hpx_core.run.qemu import QemuRunner

        return QemuRunner(board, timeout)
    if board.runner == "probe":
        from hpx_core.probe.runner import ProbeRunner, ProbeSettings

        return ProbeRunner(board, ProbeSettings(timeout=timeout, packs=tuple(packs)), probe, api)
    raise RunError(f"board {board.name} has no runner {board.runner!r}",
                   "boards.toml names qemu or probe")
