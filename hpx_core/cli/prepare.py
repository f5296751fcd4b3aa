"""`hpx prepare`: fetch the sources and build the engine libraries before the first run.

A CI image or a team's shared cache prepares what its profiles will need. For each model (or
each cell of a matrix file) and each engine, backend, board and toolchain named, the pipeline
runs up to firmware generation in a scratch work folder (removed when it ends; one a killed run
left is removed by the next: :mod:`hpx_core.cli.scratch`): that fetches the pinned sources and
builds the engine's libraries for the model's operators, and nothing else. Run again, it finds
everything and compiles nothing. ``--offline`` fetches and builds nothing: it checks that the
sources and libraries are in the cache and names what is not. Engines named without a model get
their sources only, since what of a library is built depends on the operators a model uses.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import attrs
import typer

from hpx_core.cli.app import app, console
from hpx_core.cli.scratch import scratch_folder
from hpx_core.errors import BuildError, HpxError, UsageError

if TYPE_CHECKING:  # imported when the command runs: `hpx --help` stays fast
    from hpx_core.contract import LibraryUse
    from hpx_core.pipeline import ProfileOutcome

FIRMWARE = "firmware generation"  # the last stage a preparation runs
STAGES_WITH_FILES = ("output.dir", "build.work_dir")  # where a preparation writes, overridden
SCRATCH = "hpx-prepare-"  # a preparation's scratch folder in the system's temporary folder


@attrs.frozen
class Preparation:
    """One run to prepare for: what it is called and its config as overrides."""

    label: str
    overrides: tuple[tuple[str, tuple[Any, str]], ...]


@app.command()
def prepare(
    models: Annotated[list[Path] | None, typer.Argument(help="Models to prepare for.")] = None,
    config: Annotated[Path | None, typer.Option("--config", "-c", help="Profile config.")] = None,
    engine: Annotated[list[str] | None, typer.Option("--engine", help="Engine (repeat).")] = None,
    backend: Annotated[
        list[str] | None, typer.Option("--backend", help="Backend (repeat).")] = None,
    board: Annotated[list[str] | None, typer.Option("--board", help="Board (repeat).")] = None,
    toolchain: Annotated[
        list[str] | None, typer.Option("--toolchain", help="Toolchain (repeat).")] = None,
    engine_config: Annotated[list[str] | None, typer.Option(
        "--engine-config", help="KEY=VALUE for engine.config (repeat).")] = None,
    matrix: Annotated[
        Path | None, typer.Option("--matrix", help="Prepare every cell of a matrix file.")
    ] = None,
    offline: Annotated[bool, typer.Option(
        "--offline", help="Fetch and build nothing: check the cache holds it all.")] = False,
) -> None:
    """Fetch sources and build engine libraries for models, engines, boards and toolchains."""
    named = {"engine": _or_none(engine), "backend": _or_none(backend),
             "board": _or_none(board), "toolchain": _or_none(toolchain)}
    runs = [*_model_runs(models or [], named, engine_config),
            *(_matrix_runs(matrix) if matrix else [])]
    if not runs:
        if not engine:
            raise UsageError("hpx prepare needs models, a matrix file (--matrix) or an engine",
                             "e.g. hpx prepare MODEL --board BOARD, or --engine NAME for its "
                             "sources")
        _fetch_sources(engine, _or_none(backend), _or_none(board), offline)
        return
    failures = [problem for run in runs if (problem := _prepare(run, config, offline))]
    if failures:
        what = "are not prepared" if offline else "could not be prepared"
        raise BuildError(f"{len(failures)} of {len(runs)} runs {what}",
                         "run `hpx prepare` without --offline" if offline
                         else "the cause of each is printed above")


def _or_none(values: list[str] | None) -> list[str | None]:
    """The values named, or one None: the config's (or the default) choice."""
    return list(values) if values else [None]


def _model_runs(models: Sequence[Path], named: dict[str, list[str | None]],
                engine_config: list[str] | None) -> Iterator[Preparation]:
    """One preparation per model and combination of the values named (duplicates once)."""
    from hpx_core.config.command_line import CommandLine, engine_config_values

    configured = engine_config_values(engine_config)
    seen = set()
    for model in models:
        for values in itertools.product(*named.values()):
            engine, backend, board, toolchain = values
            line = CommandLine(model=model, engine=engine, backend=backend, board=board,
                               toolchain=toolchain, engine_config=configured)
            run = Preparation(_label(model, *values), tuple(sorted(line.overrides().items())))
            if run.overrides not in seen:
                seen.add(run.overrides)
                yield run


def _label(model: Path, *parts: str | None) -> str:
    return " ".join([model.name, *(p for p in parts if p)])


def _matrix_runs(spec: Path) -> list[Preparation]:
    from hpx_core import api

    plan = api.plan_matrix(spec)
    for pruned in plan.pruned:
        console.print(f"[dim]{pruned.cell.id}: not prepared ({pruned.reason})[/]",
                      highlight=False)
    return [Preparation(planned.cell.id, tuple(sorted(
        (k, v) for k, v in planned.overrides.items() if k not in STAGES_WITH_FILES)))
        for planned in plan.cells]


def _prepare(run: Preparation, config: Path | None, offline: bool) -> str | None:
    """Prepare one run; a one-line problem when it failed (printed), else None."""
    from hpx_core import pipeline
    from hpx_core.cli.main_commands import library_progress, note
    from hpx_core.firmware.checking import only_checking

    checking: AbstractContextManager[None] = only_checking() if offline else nullcontext()
    with scratch_folder(SCRATCH) as scratch:
        overrides = {**dict(run.overrides),
                     "output.dir": (str(scratch / "results"), "hpx prepare"),
                     "build.work_dir": (str(scratch / "work"), "hpx prepare"),
                     "build.offline": (offline, "--offline")}
        try:
            with console.status(run.label) as status, library_progress(status), checking:
                outcome = pipeline.profile(
                    None, config, overrides, until=FIRMWARE, on_note=note,
                    on_stage=lambda name: status.update(f"{run.label}: [bold]{name}[/]"))
        except HpxError as error:
            console.print(f"[red]✗[/] {run.label}: {error.message}", highlight=False)
            return error.message
    console.print(f"[green]✓[/] {run.label}: {_libraries(outcome)}", highlight=False)
    return None


def _libraries(outcome: ProfileOutcome) -> str:
    uses: Sequence[LibraryUse] = outcome.contribution.libraries if outcome.contribution else ()
    if not uses:
        return "sources ready (the engine keeps no library)"
    def named(use: LibraryUse) -> str:
        return f"{use.name} ({use.linked})" if use.linked else use.name

    return "; ".join(
        f"{named(use)}: built ({use.compiled} units, {use.seconds:.1f} s)" if use.built
        else f"{named(use)}: ready" for use in uses)


def _fetch_sources(engines: Sequence[str], backends: Sequence[str | None],
                   boards: Sequence[str | None], offline: bool) -> None:
    """Sources alone, for engines named without a model."""
    from hpx_core.boards import all_boards, get_board
    from hpx_core.plugins import default_registry
    from hpx_core.sources import materialize

    catalog = default_registry().catalog
    for engine, backend, board in itertools.product(engines, backends, boards):
        label = " ".join(p for p in (engine, backend, board) if p)
        with console.status(f"{label}: sources"):
            sources = materialize(catalog, engine, backend,
                                  board=get_board(board) if board else None,
                                  known_boards=all_boards().values(), offline=offline)
        console.print(f"[green]✓[/] {label}: sources ready ({len(sources.repos)} repositories; "
                      "libraries are built per model: name models to build them)",
                      highlight=False)
