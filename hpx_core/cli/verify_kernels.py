"""``hpx verify-kernels``: which kernels and which CMSIS-NN provider a built ELF contains.

The checks belong to the engine plugins (``hpx_verify_symbols``); this command reads the ELF's
symbols with lief and asks every plugin, the same way a run does after its build.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import attrs
import typer
from rich.table import Table

from hpx_core.build import symbol_inventory
from hpx_core.cli.app import app, console
from hpx_core.engine import SymbolFinding
from hpx_core.errors import UsageError
from hpx_core.plugins import load_registry


@attrs.frozen
class EngineRef:
    type: str
    backend: str


@attrs.frozen
class ConfigRef:
    engine: EngineRef


@attrs.frozen
class VerifyRequest:
    """The context ``hpx_verify_symbols`` gets from this command (no model, no board).

    ``expect_portable`` and ``ns_ops`` say what the user expects to have linked; a run derives
    them from its program instead.
    """

    config: ConfigRef
    elf: Path
    expect_portable: bool
    ns_ops: bool


def verify_kernels_of(elf: Path, engine: str, provider: str, *, expect_portable: bool,
                      ns_ops: bool) -> list[SymbolFinding]:
    """Every plugin's findings for ``elf`` built by ``engine`` with ``provider``."""
    if not elf.is_file():
        raise UsageError(f"ELF not found: {elf}", "pass the .elf a build produced")
    registry = load_registry()
    registry.engine(engine)
    request = VerifyRequest(ConfigRef(EngineRef(engine, provider)), elf, expect_portable, ns_ops)
    answers = registry.manager.hook.hpx_verify_symbols(ctx=request,
                                                       inventory=symbol_inventory(elf))
    return [finding for answer in answers for finding in answer]


@app.command("verify-kernels")
def verify_kernels(
    elf: Annotated[Path, typer.Argument(help="The firmware ELF to inspect.")],
    provider: Annotated[str, typer.Option("--provider", help="CMSIS-NN provider: arm or ns.")],
    engine: Annotated[str, typer.Option("--engine", help="Engine that built it.")] = "executorch",
    expect_portable: Annotated[
        bool, typer.Option("--expect-portable", help="Portable kernels must be linked.")
    ] = False,
    ns_ops: Annotated[
        bool, typer.Option("--ns-ops", help="The cortex_m_ns kernels must be linked.")
    ] = False,
) -> None:
    """Check the linked kernels of ELF against the provider it should contain."""
    found = verify_kernels_of(elf, engine, provider, expect_portable=expect_portable,
                              ns_ops=ns_ops)
    if not found:
        raise UsageError(f"no plugin checks {engine} builds", "see `hpx plugins`")
    table = Table("check", "result", "detail", title=f"{elf.name} ({engine}, {provider})")
    for finding in found:
        table.add_row(finding.check, "[green]pass[/]" if finding.passed else "[red]FAIL[/]",
                      finding.detail)
    console.print(table)
    failed = [f for f in found if not f.passed]
    if failed:
        console.print(f"[red]{len(failed)} of {len(found)} checks failed[/]")
        raise typer.Exit(1)
