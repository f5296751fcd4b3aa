"""`hpx boards`: the boards hpx knows, their memory, and which engines may run on each."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

from hpx_core.cli.app import app, console

if TYPE_CHECKING:
    from hpx_core.boards import Board


def _size(length: int) -> str:
    return f"{length // (1024 * 1024)} MiB" if length % (1024 * 1024) == 0 else (
        f"{length // 1024} KiB" if length % 1024 == 0 else f"{length:,} B")


def _memory(board: Board) -> str:
    """Each region with its size and use words (the words placement options take)."""
    return "\n".join(f"{r.name} {_size(r.length)}: {r.use}" for r in board.memory)


@app.command()
def boards() -> None:
    """List boards: core, CPU maker, counter, runner, memory (regions and the use words that
    model.location and the other placement options take) and the engines that may run there."""
    from hpx_core.boards import all_boards
    from hpx_core.plugins import default_registry
    from hpx_core.sources.licensing import alternatives

    catalog = default_registry().catalog
    table = Table("board", "kind", "core", "CPU by", "clock", "counter", "runner", "memory",
                  "may run")
    for board in all_boards().values():
        table.add_row(
            board.name,
            board.kind,
            board.core,
            board.cpu_vendor,
            f"{board.clock_hz / 1e6:g} MHz",
            board.counter,
            board.runner,
            _memory(board),
            ", ".join(alternatives(catalog, board)) or "none",
        )
    console.print(table)
