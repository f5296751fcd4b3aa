"""`hpx boards`: the boards hpx knows, and which engines may run on each."""

from __future__ import annotations

from rich.table import Table

from hpx_core.cli.app import app, console


@app.command()
def boards() -> None:
    """List boards: core, CPU maker, counter, runner and the engines that may run there."""
    from hpx_core.boards import all_boards
    from hpx_core.plugins import default_registry
    from hpx_core.sources.licensing import alternatives

    catalog = default_registry().catalog
    table = Table("board", "kind", "core", "CPU by", "clock", "counter", "runner", "may run")
    for board in all_boards().values():
        table.add_row(
            board.name,
            board.kind,
            board.core,
            board.cpu_vendor,
            f"{board.clock_hz / 1e6:g} MHz",
            board.counter,
            board.runner,
            ", ".join(alternatives(catalog, board)) or "none",
        )
    console.print(table)
