"""`hpx build`: firmware for a model, checked and kept in a build bundle, without running it.

With a MODEL (or a config naming one) it is the profile pipeline up to kernel verification, for
any board: emulated or silicon, probe attached or not. Without one it builds the project in
--work-dir (with --board: the selftest project rendered there first).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hpx_core.cli.app import app, console
from hpx_core.cli.main_commands import (
    MODEL_HELP,
    ArenaLocationOption,
    BackendOption,
    ClockOption,
    ConfigOption,
    EngineConfigOption,
    EngineOption,
    JobsOption,
    ModelLocationOption,
    PowerOption,
    library_progress,
)
from hpx_core.cli.placement import print_placement
from hpx_core.errors import UsageError

if TYPE_CHECKING:
    from hpx_core.firmware import BuildResult

PROJECT_DIR = Path("hpx-work/build")
BUILD_ONLY = "kernel verification"


@app.command()
def build(
    model: Annotated[Path | None, typer.Argument(help=MODEL_HELP)] = None,
    config: ConfigOption = None,
    engine: EngineOption = None,
    backend: BackendOption = None,
    board: Annotated[
        str | None,
        typer.Option("--board", help="Board name (without a model: render the selftest for it)."),
    ] = None,
    toolchain: Annotated[str | None, typer.Option("--toolchain", help="Toolchain name.")] = None,
    clock: ClockOption = None,
    engine_config: EngineConfigOption = None,
    output_dir: Annotated[
        Path | None, typer.Option("--output-dir", help="Where the build bundle goes.")
    ] = None,
    model_location: ModelLocationOption = None,
    arena_location: ArenaLocationOption = None,
    iterations: Annotated[int | None, typer.Option("--iterations")] = None,
    warmup: Annotated[int | None, typer.Option("--warmup")] = None,
    offline: Annotated[bool | None, typer.Option("--offline/--online")] = None,
    work_dir: Annotated[
        Path | None,
        typer.Option("--work-dir", help=f"Without a model: the project folder ({PROJECT_DIR}); "
                     "with one: where work folders are kept."),
    ] = None,
    jobs: JobsOption = None,
    power: PowerOption = None,
) -> None:
    """Build a model's firmware (checked, kept in a build bundle), or a rendered project."""
    if model is None and config is None:
        _build_project(board, work_dir or PROJECT_DIR, toolchain or "arm-none-eabi-gcc", jobs or 2,
                       clock, power=bool(power))
        return
    from hpx_core import api, pipeline
    from hpx_core.config.command_line import CommandLine, engine_config_values
    from hpx_core.pipeline.built import write_build
    from hpx_core.pipeline.products import need

    flags = CommandLine(
        model=model, engine=engine, backend=backend, board=board, toolchain=toolchain,
        clock=clock, engine_config=engine_config_values(engine_config), output_dir=output_dir,
        model_location=model_location, arena_location=arena_location,
        iterations=iterations, warmup=warmup, offline=offline, work_dir=work_dir, jobs=jobs,
        power=power,
    )
    registry = api.registry()
    with console.status("building") as status, library_progress(status):
        outcome = pipeline.profile(None, config, flags.overrides(), registry, until=BUILD_ONLY,
                                   on_stage=lambda name: status.update(f"[bold]{name}[/]"))
    bundle = write_build(outcome, outcome.config.output.dir, registry)
    built = need(outcome.build, "build")
    console.print(f"built {bundle / 'firmware.elf'} (from {built.elf})", markup=False)
    _print_build(built)
    for finding in outcome.findings:
        mark = "ok" if finding.passed else ("FAILED" if finding.fatal else "warning")
        console.print(f"  kernel check {finding.check}: {mark} ({finding.detail})", markup=False)
    if outcome.placement is not None:
        print_placement(outcome.placement)
    console.print(f"bundle: {bundle}  (run it: hpx run {bundle})", markup=False)


def _build_project(board: str | None, work_dir: Path, toolchain: str, jobs: int,
                   clock: str | None, *, power: bool = False) -> None:
    from hpx_core.boards import get_board
    from hpx_core.firmware import build_project, get_toolchain, render_project
    from hpx_core.firmware.placement import check_elf
    from hpx_core.firmware.render import HarnessSettings, load_project
    from hpx_core.selftest.layers import selftest_contribution
    from hpx_core.selftest.run import ENGINE

    chain = get_toolchain(toolchain)
    if (clock is not None or power) and board is None:
        raise UsageError(f"{'--clock' if clock else '--power'} is for the board's firmware, and "
                         "no board is named",
                         "add --board BOARD (the project's board keeps its recorded settings)")
    if board is not None:
        target = get_board(board).at_clock(clock or "lp")
        if power:
            from hpx_core.power.readiness import check_board

            check_board(target)
        project = render_project(
            work_dir, target, selftest_contribution(target, gnu_as=chain.family == "gcc"),
            HarnessSettings(ENGINE, switches=("HPX_POWER_PASS",) if power else ()),
        )
    elif (work_dir / "hpx-project.json").is_file():
        project = load_project(work_dir)
    else:
        raise UsageError(
            f"{work_dir} holds no firmware project",
            "pass a MODEL to build its firmware, or --board to render the selftest project there",
        )
    result = build_project(project, chain, jobs=jobs)
    console.print(f"built {result.elf}")
    _print_build(result)
    state = "no work to do" if result.no_work else f"{result.compiled} compiler runs"
    console.print(
        f"  {state}; inputs {'unchanged' if result.fingerprint_unchanged else 'new'} "
        f"(fingerprint {result.fingerprint[:16]}); {result.seconds:.2f} s"
    )
    print_placement(check_elf(project.board, result.elf, project.contribution.buffers))


def _print_build(result: BuildResult) -> None:
    sizes = result.sizes
    console.print(
        f"  toolchain {result.toolchain_version}; text {sizes.text} B, "
        f"data {sizes.data} B, bss {sizes.bss} B"
    )
