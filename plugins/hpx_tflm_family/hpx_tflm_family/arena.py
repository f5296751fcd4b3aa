"""Tensor arena sizing: the configured size, or a generous probe whose real use is reported.

When ``model.arena_size`` is unset the firmware is built with a probe arena (a share of the
board's data memory, or of the memory ``model.arena_location`` names); the first run reports
``arena_used`` (TFLM's ``arena_used_bytes()``), and the results carry it as
``allocated_arena`` with a 1.5x suggestion for ``model.arena_size``.
"""

from __future__ import annotations

from typing import Literal

import attrs

from hpx_core.sdk import ConfigError
from hpx_core.sdk.firmware import Board

ALIGN = 16
PROBE_SHARE = 2  # probe arena = data memory / PROBE_SHARE, capped below
PROBE_CAP = 2 * 1024 * 1024
SUGGESTION_FACTOR = 1.5


def align_up(value: int, to: int = ALIGN) -> int:
    return (value + to - 1) // to * to


@attrs.frozen
class ArenaPlan:
    """The arena compiled into the firmware and where its size came from."""

    size: int
    source: Literal["config", "probe"]


def data_memory(board: Board, word: str = "data") -> int:
    """Bytes of the board's memory that serve ``word`` (its data memory by default)."""
    return sum(region.length for region in board.regions_for(word))


def plan_arena(configured: int | None, board: Board, location: str | None = None) -> ArenaPlan:
    """The configured size (aligned), or the probe size for ``board`` (and ``location``)."""
    named = location is not None and bool(board.regions_for(location))  # else refused later
    room = data_memory(board, location) if named and location else data_memory(board)
    where = f"{location} memory" if named else "data memory"
    if configured is not None:
        size = align_up(configured)
        if size > room:
            raise ConfigError(
                f"model.arena_size {configured} exceeds {board.name}'s {where} ({room} bytes)",
                "lower model.arena_size, or unset it to let hpx measure what the model needs",
            )
        return ArenaPlan(size, "config")
    return ArenaPlan(min(align_up(room // PROBE_SHARE), PROBE_CAP), "probe")


def suggested_arena(used: int) -> int:
    """1.5x the measured use, aligned: the value to put in ``model.arena_size``."""
    return align_up(int(used * SUGGESTION_FACTOR + 0.5))


def arena_summary(plan: ArenaPlan, used: int | None) -> dict[str, int | str | None]:
    """The summary fields: compiled size, its source, measured use and the suggestion."""
    return {
        "arena_size": plan.size,
        "arena_source": plan.source,
        "allocated_arena": used,
        "suggested_arena_size": suggested_arena(used) if used is not None else None,
    }
