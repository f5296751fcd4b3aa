"""`hpx build`: render and build firmware, stopping after the build (no board needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hpx_core.cli.app import app, console
from hpx_core.cli.placement import print_placement
from hpx_core.errors import UsageError

WorkDirOption = Annotated[Path, typer.Option("--work-dir", help="Project and build folder.")]


@app.command()
def build(
    board: Annotated[
        str | None,
        typer.Option("--board", help="Render the selftest workload for this board first."),
    ] = None,
    work_dir: WorkDirOption = Path("hpx-work/build"),
    toolchain: Annotated[str, typer.Option("--toolchain")] = "arm-none-eabi-gcc",
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1)] = 2,
) -> None:
    """Build the firmware project in WORK_DIR (with --board: the selftest project)."""
    from hpx_core.boards import get_board
    from hpx_core.build import build_project, get_toolchain, render_project
    from hpx_core.build.placement import check_elf
    from hpx_core.build.render import HarnessSettings, load_project
    from hpx_core.selftest.layers import selftest_contribution
    from hpx_core.selftest.run import ENGINE

    chain = get_toolchain(toolchain)
    if board is not None:
        target = get_board(board)
        project = render_project(
            work_dir, target, selftest_contribution(target), HarnessSettings(ENGINE)
        )
    elif (work_dir / "hpx-project.json").is_file():
        project = load_project(work_dir)
    else:
        raise UsageError(
            f"{work_dir} holds no firmware project",
            "pass --board to render the selftest project there",
        )
    result = build_project(project, chain, jobs=jobs)
    console.print(f"built {result.elf}")
    console.print(
        f"  toolchain {result.toolchain_version}; text {result.sizes.text} B, "
        f"data {result.sizes.data} B, bss {result.sizes.bss} B"
    )
    state = "no work to do" if result.no_work else f"{result.compiled} compiler runs"
    console.print(
        f"  {state}; inputs {'unchanged' if result.fingerprint_unchanged else 'new'} "
        f"(fingerprint {result.fingerprint[:16]}); {result.seconds:.2f} s"
    )
    print_placement(check_elf(project.board, result.elf, project.contribution.buffers))
