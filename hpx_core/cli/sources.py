"""`hpx sources list|fetch` and `hpx cache info|clean`: thin views over :mod:`hpx_core.sources`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import attrs
import typer
from rich.console import Console
from rich.table import Table

from hpx_core.cli.app import cache_app, console, sources_app
from hpx_core.errors import UsageError

if TYPE_CHECKING:  # the commands import what they use: `hpx --help` stays fast
    from rich.progress import Progress, TaskID

    from hpx_core.contract import SourceSet
    from hpx_core.sources.cache import SourceCache
    from hpx_core.sources.pins import PinSet, RepoPin
    from hpx_core.sources.sync import ProgressFn

_STATE_STYLE = {
    "at pin": "green",
    "missing": "dim",
    "dirty": "yellow",
    "wrong commit": "yellow",
    "invalid": "red",
    "absent": "yellow",
}


def human(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


@attrs.frozen
class Row:
    """One line of `hpx sources list`: a pinned repository or submodule and its cache state."""

    name: str
    url: str
    commit: str
    license: str
    runs_on: str
    used_by: str
    declared_by: str
    state: str
    detail: str
    path: str
    submodule: bool = False


def _listing(catalog: PinSet, pins: tuple[RepoPin, ...], store: SourceCache) -> list[Row]:
    from hpx_core.sources.cache import pin_states
    from hpx_core.sources.checkout import submodule_state

    rows: list[Row] = []
    for row in pin_states(pins, store):
        pin, owner = row.pin, catalog.declared_by.get(row.pin.name, "")
        rows.append(
            Row(pin.name, pin.url, pin.commit, pin.license, pin.runs_on,
                ", ".join(catalog.users_of(pin.name)), owner, row.state.state, row.state.detail,
                str(row.path))
        )  # fmt: skip
        for sub in pin.submodules:
            state = submodule_state(row.path, pin, sub)
            rows.append(
                Row(sub.name, sub.url, sub.commit, sub.license, pin.runs_on,
                    f"{pin.name}: {sub.path}", owner, state, "", str(row.path / sub.path), True)
            )  # fmt: skip
    return rows


@sources_app.command("list")
def list_sources(
    engine: Annotated[str | None, typer.Option("--engine", help="Only this engine's pins.")] = None,
    backend: Annotated[str | None, typer.Option("--backend", help="Engine backend.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """What is pinned, who declared each pin, its license, and what the cache holds for it."""
    from hpx_core.plugins import default_registry
    from hpx_core.sources.cache import SourceCache
    from hpx_core.sources.versions import package_status

    catalog = default_registry().catalog
    pins = catalog.pins_for(engine, backend) if engine else tuple(catalog.repositories.values())
    store = SourceCache()
    rows = _listing(catalog, pins, store)
    packages = catalog.packages_for(engine) if engine else tuple(catalog.packages.values())
    statuses = [package_status(pkg) for pkg in packages]
    if as_json:
        report = {
            "cache": str(store.root),
            "repositories": [attrs.asdict(row) for row in rows],
            "packages": [attrs.asdict(status) for status in statuses],
        }
        typer.echo(json.dumps(report, indent=2))
        return
    table = Table("repository", "commit", "license", "runs on", "used by", "declared by", "cache")
    for row in rows:
        style = _STATE_STYLE.get(row.state, "dim")
        detail = f" ({row.detail})" if row.detail else ""
        name = f"  {row.name}" if row.submodule else row.name
        table.add_row(
            name, row.commit[:12], row.license, "" if row.submodule else row.runs_on,
            row.used_by, "" if row.submodule else row.declared_by,
            f"[{style}]{row.state}[/]{detail}",
        )  # fmt: skip
    console.print(table)
    for pkg, status in zip(packages, statuses, strict=True):
        found = status.installed or "not installed"
        console.print(
            f"package {pkg.distribution}: {found} (minimum {pkg.min_version}), "
            f"{pkg.license}, runs on {pkg.runs_on}, declared by "
            f"{catalog.declared_by.get(pkg.name, '')}"
        )
    console.print(f"cache: {store.root}")


def _progress_bar(progress: Progress) -> ProgressFn:
    tasks: dict[str, TaskID] = {}

    def report(name: str, phase: str, fraction: float | None) -> None:
        if name not in tasks:
            tasks[name] = progress.add_task(name, total=1.0, phase="waiting")
        task = tasks[name]
        if fraction is not None and phase in ("cloning", "done"):
            progress.update(task, completed=fraction, phase=phase)
        else:
            progress.update(task, phase=phase)

    return report


@sources_app.command("fetch")
def fetch(
    engine: Annotated[str | None, typer.Option("--engine", help="Engine to fetch.")] = None,
    backend: Annotated[
        str | None, typer.Option("--backend", help="Backend (default: every backend).")
    ] = None,
    board: Annotated[
        str | None, typer.Option("--board", help="Refuse first unless the engine may run here.")
    ] = None,
    board_family: Annotated[
        str | None, typer.Option("--board-family", help="Board support to fetch (e.g. apollo).")
    ] = None,
    source_path: Annotated[
        Path | None, typer.Option("--source-path", help="Use this checkout for the engine.")
    ] = None,
    allow_unpinned: Annotated[
        bool, typer.Option("--allow-unpinned", help="Accept an override that is not at the pin.")
    ] = False,
    offline: Annotated[
        bool, typer.Option("--offline", help="Cache only: verify it is at the pins and clean.")
    ] = False,
) -> None:
    """Materialize pinned sources ahead of a run."""
    if (engine is None) == (board_family is None):
        raise UsageError("give exactly one of --engine or --board-family", "see `hpx sources list`")
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from hpx_core.boards import all_boards, get_board
    from hpx_core.plugins import default_registry
    from hpx_core.sources.cache import SourceCache
    from hpx_core.sources.materialize import materialize, materialize_board

    store = SourceCache()
    catalog = default_registry().catalog
    started = time.monotonic()
    columns = (
        TextColumn("{task.description:<16}"),
        BarColumn(),
        TextColumn("{task.fields[phase]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=False) as progress:
        report = _progress_bar(progress)
        if engine is not None:
            target = get_board(board) if board else None
            sources = materialize(
                catalog, engine, backend, board=target, known_boards=all_boards().values(),
                source_path=source_path, allow_unpinned=allow_unpinned, offline=offline,
                cache=store, progress=report,
            )  # fmt: skip
        else:
            assert board_family is not None
            sources = materialize_board(
                board_family, offline=offline, cache=store, progress=report
            )
    _print_sources(sources, time.monotonic() - started)


def _print_sources(sources: SourceSet, seconds: float) -> None:
    table = Table("repository", "commit", "license", "path")
    for repo in sources.repos:
        table.add_row(repo.name, repo.commit, repo.license, str(repo.path))
    console.print(table)
    console.print(f"provenance: {sources.provenance}; {seconds:.1f} s")


@cache_app.command("info")
def info() -> None:
    """Where the cache is and how big each part of it is."""
    from hpx_core.sources.cache import cache_info

    report = cache_info()
    table = Table("entry", "size")
    for entry in report.entries:
        table.add_row(entry.name, human(entry.size))
    console.print(table)
    console.print(f"cache: {report.root}  total: {human(report.total)}")


@cache_app.command("clean")
def clean(
    names: Annotated[
        list[str] | None, typer.Argument(help="Repositories to remove (default: everything).")
    ] = None,
) -> None:
    """Remove cached sources (each under its lock), or the whole cache."""
    from hpx_core.plugins import default_registry
    from hpx_core.sources.cache import clean_cache

    removed = clean_cache(names or None, catalog=default_registry().catalog)
    for path in removed:
        console.print(f"removed {path}")
    if not removed:
        console.print("nothing to remove")
