"""`hpx selftest`: check a board setup against loops of exactly known instruction counts."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from hpx_core.cli.app import app, console
from hpx_core.cli.main_commands import OutputDirOption


@app.command()
def selftest(
    board: Annotated[str, typer.Option("--board", help="qemu-m55 or qemu-m4.")] = "qemu-m55",
    work_dir: Annotated[Path, typer.Option("--work-dir")] = Path("hpx-work/selftest"),
    output_dir: OutputDirOption = Path("hpx-results"),
    toolchain: Annotated[str, typer.Option("--toolchain")] = "arm-none-eabi-gcc",
    probe: Annotated[
        str | None, typer.Option("--probe", help="Probe unique ID (Apollo boards).")
    ] = None,
    pack: Annotated[
        list[Path] | None, typer.Option("--pack", help="CMSIS pack for pyocd; repeatable.")
    ] = None,
) -> None:
    """Build, run twice and compare each calibration layer with its known count."""
    from hpx_core.boards import get_board
    from hpx_core.selftest.run import SelftestFailedError, run_selftest

    if get_board(board).silicon is not None:
        from hpx_core.cli.probes import silicon_selftest

        silicon_selftest(board, work_dir, output_dir, probe, pack or [])
        return
    report = run_selftest(board, work_dir, output_dir, toolchain=toolchain)
    table = Table(
        "layer",
        "loop",
        "expected",
        "measured (per iteration)",
        "worst error",
        "ok",
        title=f"hpx selftest on {report.board} (instructions, emulated)",
    )
    for check in report.checks:
        table.add_row(
            check.name,
            check.kind,
            f"{check.expected:,}",
            ", ".join(f"{m:,}" for m in check.measured),
            str(check.worst_error),
            "yes" if check.passed else "NO",
        )
    console.print(table)
    seconds = ", ".join(f"{r.execution.seconds:.2f}" for r in report.runs)
    console.print(
        f"calibrated begin/end pair: {report.calibration_pair} instructions; "
        f"build {report.build.seconds:.2f} s ({report.build.compiled} compiler runs); "
        f"QEMU runs {seconds} s"
    )
    console.print(
        f"two runs byte-identical: {'yes' if report.runs_identical else 'NO'}; "
        f"output check: {'ok' if report.output_ok else 'WRONG'}"
    )
    console.print(f"bundle: {report.runs[0].bundle}")
    if not report.passed:
        raise SelftestFailedError(
            f"selftest failed on {report.board}",
            "the counts above do not match; check QEMU and the toolchain",
        )
    console.print(f"selftest passed on {report.board}")
