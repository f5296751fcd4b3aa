"""``hpx verify-kernels``: which kernels and which kernel provider a built ELF contains.

The checks belong to the engine plugins (``hpx_verify_symbols``); this command reads the ELF's
symbols with lief and asks every plugin, the same way a run does after its build.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from hpx_core.cli.app import app, console
from hpx_core.errors import UsageError

if TYPE_CHECKING:
    from hpx_core.contract import SymbolFinding


def verify_kernels_of(elf: Path, engine: str, backend: str | None,
                      expect: Iterable[str] = ()) -> list[SymbolFinding]:
    """Every plugin's findings for ``elf`` built by ``engine`` with ``backend``."""
    from hpx_core.contract import SymbolsRequest
    from hpx_core.firmware import symbol_inventory
    from hpx_core.hooks import EngineHooks
    from hpx_core.plugins import default_registry

    if not elf.is_file():
        raise UsageError(f"ELF not found: {elf}", "pass the .elf a build produced")
    registry = default_registry()
    backend = backend_or_default(engine, backend)
    request = SymbolsRequest(engine=engine, backend=backend, elf=elf,
                             symbols=frozenset(symbol_inventory(elf).names()),
                             expect=frozenset(expect))
    return EngineHooks(registry).verify_symbols(request)


@app.command("verify-kernels")
def verify_kernels(
    elf: Annotated[Path, typer.Argument(help="The firmware ELF to inspect.")],
    engine: Annotated[str, typer.Option("--engine", help="Engine that built it.")],
    backend: Annotated[str | None, typer.Option("--backend", help="Its backend.")] = None,
    provider: Annotated[str | None, typer.Option(
        "--provider", hidden=True, help="--backend's earlier spelling.")] = None,
    expect: Annotated[
        list[str] | None,
        typer.Option("--expect", help="What must have linked, in the engine's words "
                     "(e.g. portable, ns_ops); repeatable."),
    ] = None,
) -> None:
    """Check the linked kernels of ELF against the backend it should contain."""
    if provider is not None and backend not in (None, provider):
        raise UsageError(f"--backend {backend} and --provider {provider} disagree",
                         "pass --backend only")
    backend = backend or provider
    found = verify_kernels_of(elf, engine, backend, expect or [])
    if not found:
        raise UsageError(f"no plugin checks {engine} builds", "see `hpx plugins`")
    table = Table("check", "result", "detail", title=f"{elf.name} ({_built_by(engine, backend)})")
    for finding in found:
        table.add_row(finding.check, "[green]pass[/]" if finding.passed else "[red]FAIL[/]",
                      finding.detail)
    console.print(table)
    failed = [f for f in found if not f.passed]
    if failed:
        console.print(f"[red]{len(failed)} of {len(found)} checks failed[/]")
        raise typer.Exit(1)



def backend_or_default(engine: str, backend: str | None) -> str | None:
    """The backend a build without ``--backend`` has: the engine's first (None: it has none)."""
    from hpx_core.plugins import default_registry

    backends = default_registry().engine(engine).descriptor.backends
    return backend or (backends[0] if backends else None)


def _built_by(engine: str, backend: str | None) -> str:
    chosen = backend_or_default(engine, backend)
    return engine if chosen is None else f"{engine}, backend {chosen}"
