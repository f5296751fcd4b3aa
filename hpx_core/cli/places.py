"""`hpx places`: the labgrid places hpx could run on, their boards, tags and holders."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import attrs
import typer
from rich.table import Table

from hpx_core.cli.app import app, console


@app.command()
def places(
    board: Annotated[str | None, typer.Option("--board", help="Only places for this board.")]
    = None,
    every: Annotated[bool, typer.Option(
        "--all", help="Every place, with why hpx could not use some.")] = False,
    coordinator: Annotated[str | None, typer.Option(
        "--coordinator", help="HOST:PORT (else farm.coordinator of -c, else LG_COORDINATOR).")]
    = None,
    config: Annotated[Path | None, typer.Option(
        "--config", "-c", help="A profile config whose farm section names the coordinator.")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """List the board farm's places hpx could use: board, status (who holds it), hosts, tags."""
    from hpx_core import api
    from hpx_core.farm.client import coordinator_address, farm_client
    from hpx_core.farm.places import BOARD_TAG, list_places

    configured = api.validate_config(config).config.farm.coordinator if config else None
    address = coordinator_address(coordinator or configured)
    rows = list_places(farm_client(address), board, every=every)
    if as_json:
        typer.echo(json.dumps([
            {"place": r.state.name, "board": r.board, "usable": r.usable, "status": r.status,
             "held_by": r.state.holder, "hosts": list(r.hosts), "tags": dict(r.state.tags),
             "comment": r.state.comment,
             "resources": [attrs.asdict(x) for x in r.state.resources]} for r in rows],
            indent=2))
        return
    table = Table("place", "board", "status", "exporter (host)", "tags", "comment",
                  title=f"places at {address}")
    for row in rows:
        tags = " ".join(f"{k}={v}" for k, v in sorted(row.state.tags.items()) if k != BOARD_TAG)
        status = row.status if row.usable else f"[red]{row.status}[/]"
        table.add_row(row.state.name, row.board or "-", status, ", ".join(row.hosts) or "-",
                      tags, row.state.comment)
    console.print(table)
    if not rows:
        what = f" for {board}" if board else ""
        console.print(f"no place{what} hpx could use (`hpx places --all` shows every place)")
