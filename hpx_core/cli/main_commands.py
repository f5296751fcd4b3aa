"""Top-level commands: version, plugins, config, doctor, profile."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import attrs
import typer
from rich.markup import escape
from rich.table import Table

from hpx_core.cli.app import app, config_app, console
from hpx_core.errors import UsageError

if TYPE_CHECKING:  # each command imports what it uses: `hpx --help` stays fast
    from collections.abc import Sequence

    from rich.status import Status

    from hpx_core import pipeline
    from hpx_core.cli.pass_rows import CommandRow, PassRow

MODEL_HELP = ("Model file, in a format an installed engine reads (hpx plugins lists each "
              "engine's formats).")
ConfigOption = Annotated[
    Path | None, typer.Option("--config", "-c", help="Profile config (YAML).", exists=False)
]
EngineOption = Annotated[str | None, typer.Option("--engine", help="Engine name.")]
BackendOption = Annotated[str | None, typer.Option("--backend", help="Engine backend.")]
BoardOption = Annotated[str | None, typer.Option("--board", help="Board name.")]
ToolchainOption = Annotated[str | None, typer.Option("--toolchain", help="Toolchain name.")]
ClockOption = Annotated[str | None, typer.Option(
    "--clock", help="The Apollo board's performance mode: lp (the clock after reset) or hp "
    "(high performance: 250 MHz on the Apollo510 and Apollo330P, 192 MHz on the Apollo4 Plus); "
    "with an emulated board, the mode of the board a pass estimates for.")]
PlaceOption = Annotated[str | None, typer.Option(
    "--place", help="Run on this labgrid place (a board farm; LG_COORDINATOR names it).")]
WaitOption = Annotated[float | None, typer.Option(
    "--wait", help="Seconds to wait for a busy place (default 600).")]
NoWaitOption = Annotated[bool, typer.Option("--no-wait", help="Fail at once if the place is busy.")]
SshKeyOption = Annotated[Path | None, typer.Option(
    "--ssh-key", help="Key for places that run QEMU on their exporter host.")]
OutputDirOption = Annotated[Path, typer.Option(
    "--output-dir", "--results-dir", help="Where result bundles go (--results-dir: its old name).")]
ModelLocationOption = Annotated[str | None, typer.Option(
    "--model-location", help="Where the model goes: a use word of the board's memory map "
    "(code, flash, tcm, sram, data, psram; hpx boards BOARD lists them).")]
ArenaLocationOption = Annotated[str | None, typer.Option(
    "--arena-location", help="Where the tensor arena goes (a use word, as --model-location).")]
WorkDirOption = Annotated[Path | None, typer.Option(
    "--work-dir", help="Where work folders are kept (default: hpx-work beside the output).")]
JobsOption = Annotated[int | None, typer.Option(
    "--jobs", "-j", min=1, help="Parallel compile jobs of the firmware build.")]
PowerOption = Annotated[bool | None, typer.Option(
    "--power", help="Energy on a silicon board: the firmware marks windows on the board's power "
    "GPIOs for a Joulescope (power: in the config; docs/apollo-boards.md, \"Energy\").")]
EngineConfigOption = Annotated[
    list[str] | None,
    typer.Option("--engine-config", help="engine.config KEY=VALUE (YAML value); repeatable."),
]


def _version(value: bool) -> None:
    if value:
        from hpx_core import __version__

        typer.echo(f"hpx {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
    log_json: Annotated[bool, typer.Option("--log-json", help="Logs as JSON lines.")] = False,
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True, help="More logs.")] = 0,
    no_plugins: Annotated[
        bool, typer.Option("--no-plugins", help="Load no engine plugin (diagnosing an install).")
    ] = False,
) -> None:
    """Profile ML inference on Cortex-M: real Apollo boards or emulated ones."""
    from hpx_core.cli.logs import configure_logging
    from hpx_core.plugins import default_registry  # not hpx_core.api: all of hpx behind it

    configure_logging(json=log_json, verbosity=verbose)
    registry = default_registry(no_plugins=no_plugins, reload=True)
    if ctx.invoked_subcommand != "plugins":  # whose table lists them: said once either way
        for failure in registry.failures:
            typer.secho(f"skipped plugin {failure.plugin.name} ({failure.plugin.distribution}): "
                        f"{failure.reason} (hpx plugins lists the engines)", fg="yellow", err=True)


@app.command()
def plugins(
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """List installed engines, passes and commands, their distributions and versions."""
    from hpx_core import api
    from hpx_core.cli.pass_rows import command_rows, pass_rows

    report = api.list_plugins()
    passes, commands = pass_rows(api.registry()), command_rows()
    if as_json:
        typer.echo(json.dumps(attrs.asdict(report) | {
            "passes": [attrs.asdict(p) for p in passes],
            "commands": [attrs.asdict(c) for c in commands]}, indent=2))
        return
    table = Table("engine", "distribution", "version", "models", "backends", "about")
    for row in report.engines:
        table.add_row(
            row.engine,
            row.distribution,
            row.version,
            ", ".join(row.model_formats),
            ", ".join(row.backends) or "-",
            row.summary,
        )
    console.print(table)
    _print_passes(passes, commands)
    for failure in report.failures:
        console.print(
            f"[yellow]skipped plugin {failure.plugin.name}[/] "
            f"({failure.plugin.distribution}): {failure.reason}", markup=True, highlight=False
        )
        if failure.hint:
            console.print(f"  hint: {failure.hint}", markup=False, highlight=False)
    for name in report.conflicts:
        console.print(f"[yellow]engine {name} is declared by more than one plugin; not usable[/]")


def _print_passes(passes: Sequence[PassRow], commands: Sequence[CommandRow]) -> None:
    if passes:
        table = Table("pass", "distribution", "version", "keys", "flags", "bundle files")
        for row in passes:
            table.add_row(row.name, row.distribution, row.version, ", ".join(row.keys) or "-",
                          ", ".join(row.flags) or "-", ", ".join(row.files) or "-")
        console.print(table)
    for command in commands:
        console.print(f"command hpx {command.command} ({command.distribution})", markup=False,
                      highlight=False)


@config_app.command("validate")
def config_validate(
    file: Annotated[Path | None, typer.Argument(help="Profile config (YAML).")] = None,
    config: ConfigOption = None,
    engine: EngineOption = None,
    backend: BackendOption = None,
    board: BoardOption = None,
    toolchain: ToolchainOption = None,
    engine_config: EngineConfigOption = None,
) -> None:
    """Check a config file as `hpx profile` would before its first fetch: the engine's own
    section, the board, the model, the license and the counters (with the same flags)."""
    from hpx_core import api
    from hpx_core.config.command_line import CommandLine, engine_config_values

    if file is not None and config is not None and file != config:
        raise UsageError(f"two configs given: {file} and {config}", "pass one of them")
    file = file or config
    if file is None:
        raise UsageError("no config to validate", "pass it: hpx config validate -c hpx.yaml")
    flags = CommandLine(engine=engine, backend=backend, board=board, toolchain=toolchain,
                        engine_config=engine_config_values(engine_config))
    outcome = api.check_config(file, flags.overrides(), api.registry())
    chosen = outcome.config.engine
    typer.echo(
        f"{file}: valid ({chosen.type}, backend {chosen.backend}, "
        f"board {outcome.config.target.board}; checked: {', '.join(outcome.stages)})"
    )
    for what in outcome.unchecked:
        typer.echo(f"not checked: {what}")


@config_app.command("show")
def config_show(
    file: Annotated[Path | None, typer.Argument(help="Profile config (YAML).")] = None,
    config: ConfigOption = None,
    engine: EngineOption = None,
    backend: BackendOption = None,
    board: BoardOption = None,
    toolchain: ToolchainOption = None,
    engine_config: EngineConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """Print every resolved value and where it came from."""
    from hpx_core import api
    from hpx_core.config.command_line import CommandLine, engine_config_values

    if file is not None and config is not None and file != config:
        raise UsageError(f"two configs given: {file} and {config}", "pass one of them")
    flags = CommandLine(engine=engine, backend=backend, board=board, toolchain=toolchain,
                        engine_config=engine_config_values(engine_config))
    validated = api.validate_config(file or config, flags.overrides())
    values = validated.values()
    engine_values = validated.engine_values()
    rows = [
        (v.path, v.value, v.origin)
        for v in values
        if v.path != "engine.config" and not v.path.startswith("engine.config.")
    ]
    rows += [
        (f"engine.config.{k}", val, validated.document.origin(f"engine.config.{k}"))
        for k, val in engine_values.items()
    ]
    if as_json:
        typer.echo(
            json.dumps(
                [{"path": p, "value": _jsonable(v), "origin": o} for p, v, o in rows], indent=2
            )
        )
        return
    table = Table("key", "value", "from")
    for path, value, origin in rows:
        table.add_row(path, str(value), origin)
    console.print(table)


def _jsonable(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    if attrs.has(type(value)):
        return attrs.asdict(value)
    return value


@app.command()
def doctor(
    config: ConfigOption = None,
    board: BoardOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """Check Python, plugins, tools and probes; non-zero exit when something needed is
    missing. Each attached probe is shown with the way a run reaches the board's part."""
    from hpx_core import api
    from hpx_core.boards import get_board
    from hpx_core.pipeline.doctor import run_doctor

    toolchain, emulated, engine = "arm-none-eabi-gcc", None, None
    chosen = get_board(board) if board is not None else None
    if config is not None:
        validated = api.validate_config(config)
        toolchain = validated.config.target.toolchain
        chosen = chosen or get_board(validated.config.target.board)
        engine = validated.config.engine.type
    if chosen is not None:
        emulated = chosen.emulated
    report = run_doctor(api.registry(), toolchain=toolchain, emulated=emulated, engine=engine,
                        board=chosen)
    if as_json:
        typer.echo(
            json.dumps(
                {"healthy": report.healthy, "checks": [attrs.asdict(c) for c in report.checks]},
                indent=2,
            )
        )
    else:
        table = Table("check", "status", "detail")
        for check in report.checks:
            status = "ok" if check.ok else ("MISSING" if check.required else "absent")
            table.add_row(check.name, status, escape(check.detail))  # "hpx-core[labgrid]"
        console.print(table)
    if not report.healthy:
        raise typer.Exit(1)


@app.command()
def profile(
    context: typer.Context,
    model: Annotated[Path | None, typer.Argument(help=MODEL_HELP)] = None,
    config: ConfigOption = None,
    engine: EngineOption = None,
    backend: BackendOption = None,
    board: BoardOption = None,
    toolchain: ToolchainOption = None,
    clock: ClockOption = None,
    engine_config: EngineConfigOption = None,
    output_dir: Annotated[Path | None, typer.Option(
        "--output-dir", help="Where the result bundle goes (default: the config's output.dir, "
        "hpx-results); work folders go beside it in hpx-work unless build.work_dir says.")
    ] = None,
    model_location: ModelLocationOption = None,
    arena_location: ArenaLocationOption = None,
    iterations: Annotated[int | None, typer.Option("--iterations")] = None,
    warmup: Annotated[int | None, typer.Option("--warmup")] = None,
    offline: Annotated[bool | None, typer.Option("--offline/--online")] = None,
    work_dir: WorkDirOption = None,
    jobs: JobsOption = None,
    counters: Annotated[
        str | None,
        typer.Option(
            "--counters",
            help="PMU events per layer, comma-separated Arm names (INST_RETIRED,"
            "L1D_CACHE_REFILL,...); more than the PMU counts at once run in passes.",
        ),
    ] = None,
    probe: Annotated[str | None, typer.Option("--probe", help="Debug probe unique ID.")] = None,
    check_layers: Annotated[
        str | None,
        typer.Option(
            "--check-layers",
            help="After the measured passes, compare every layer's outputs with the host "
            "(--check-layers: the first differing layer in full; --check-layers=all: every "
            "one, up to 1 MiB; off).",
        ),
    ] = None,
    place: PlaceOption = None,
    wait: WaitOption = None,
    no_wait: NoWaitOption = False,
    ssh_key: SshKeyOption = None,
    power: PowerOption = None,
) -> None:
    """Profile a model: config, sources, firmware, build, run, capture, results."""
    from hpx_core import pipeline
    from hpx_core.cli.extensions import given_pass_flags
    from hpx_core.config.command_line import CommandLine, counter_names, engine_config_values
    from hpx_core.plugins import default_registry

    flags = CommandLine(
        model=model, engine=engine, backend=backend, board=board, toolchain=toolchain,
        clock=clock, engine_config=engine_config_values(engine_config), output_dir=output_dir,
        model_location=model_location, arena_location=arena_location,
        iterations=iterations, warmup=warmup, counters=counter_names(counters), probe=probe,
        place=place, wait=wait, no_wait=no_wait, ssh_key=ssh_key, offline=offline,
        work_dir=work_dir, jobs=jobs, check_layers=check_layers, power=power,
        pass_flags=given_pass_flags(context),
    )
    with console.status("profiling") as status, library_progress(status):
        outcome = pipeline.profile(
            None,
            config,
            flags.overrides(),
            default_registry(),
            on_stage=lambda name: status.update(f"[bold]{name}[/]"),
            on_note=note,
        )
    _print_profile(outcome)


def library_progress(status: Status) -> AbstractContextManager[None]:
    """On a terminal a library build shows as a bar in the status line; elsewhere the builds
    print a line every tenth of the way."""
    from hpx_core.firmware.progress import bar, reporting

    if not console.is_terminal:
        return nullcontext()
    return reporting(lambda name, done, total: status.update(
        f"[bold]building {name}[/] {bar(done, total)} {done}/{total} units"))


def note(message: str) -> None:
    """A note the user should see while a command runs (a busy farm place, ...)."""
    console.print(f"[yellow]{message}[/]", highlight=False)


def _print_profile(outcome: pipeline.ProfileOutcome) -> None:
    """The per-layer counts with every uncounted pass's columns, then each pass's lines."""
    from hpx_core.results.outputs import OutputVerdict

    measurement = outcome.measurement
    if measurement is None:
        return
    total = sum(layer.median for layer in measurement.layers) or 1
    events = list(dict.fromkeys(e for layer in measurement.layers for e in layer.events))
    shown = [p.shown for p in outcome.record.passes.values()] if outcome.record else []
    table = Table("layer", "op", measurement.units, "share", *events,
                  *(c for s in shown for c in s.columns), title=str(outcome.config.model.path))
    for layer in measurement.layers:
        counted = [f"{layer.events[e]:,}" if e in layer.events else "-" for e in events]
        table.add_row(layer.name, layer.op, f"{layer.median:,}", f"{layer.median / total:.1%}",
                      *counted, *(c for s in shown for c in s.row(layer.index)))
    console.print(table)
    console.print(
        f"whole inference (uninstrumented): {measurement.whole_median:,} {measurement.units}; "
        f"per-layer sum {measurement.layer_sum:,}"
    )
    for line in (line for s in shown for line in s.lines):
        console.print(line, markup=False, highlight=False)
    outputs = outcome.record.outputs if outcome.record else None
    wrong = isinstance(outputs, OutputVerdict) and not outputs.passed
    if outputs is not None:
        style = "bold red" if wrong else None if outputs.checked else "bold yellow"
        console.print(outputs.sentence(), style=style, markup=False, highlight=False)
    console.print(f"bundle: {outcome.bundle}")
    if wrong and isinstance(outputs, OutputVerdict):
        raise outputs.error(outcome.bundle)
