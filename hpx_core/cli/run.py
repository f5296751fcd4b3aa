"""`hpx run`: run a built project on its board (QEMU or the probe) and write a result bundle."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hpx_core.cli.app import app, console
from hpx_core.errors import BuildError

if TYPE_CHECKING:
    from hpx_core.run import RunRecord


@app.command()
def run(
    work_dir: Annotated[Path, typer.Option("--work-dir", help="A built project.")] = Path(
        "hpx-work/build"
    ),
    results_dir: Annotated[Path, typer.Option("--results-dir")] = Path("hpx-results"),
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds.")] = 60.0,
    probe: Annotated[
        str | None, typer.Option("--probe", help="Probe unique ID (silicon boards).")
    ] = None,
    pack: Annotated[
        list[Path] | None, typer.Option("--pack", help="CMSIS pack for pyocd; repeatable.")
    ] = None,
) -> None:
    """Run the firmware built in WORK_DIR; a bundle is written whether it succeeds or not."""
    from hpx_core.build import load_project
    from hpx_core.build.fingerprint import read_stamp
    from hpx_core.run import run_and_record, runner_for

    project = load_project(work_dir)
    stamp = read_stamp(project.root / "hpx-build.json")
    if not project.elf.is_file() or not stamp:
        raise BuildError(f"{work_dir} has not been built", f"run `hpx build --work-dir {work_dir}`")
    runner = runner_for(project.board, timeout=timeout, probe=probe, packs=pack or [])
    record = run_and_record(
        runner,
        project.elf,
        results_dir,
        engine=project.settings.engine,
        toolchain=str(stamp.get("toolchain_version", "")),
        build={
            k: stamp[k]
            for k in ("toolchain", "toolchain_version", "fingerprint", "sizes")
            if k in stamp
        },
    )
    print_record(project.board.name, record)


def print_record(board: str, record: RunRecord) -> None:
    """The summary of one run, whatever ran it."""
    m = record.measurement
    details = record.execution.details
    probe = details.get("probe")
    where = (f"{details.get('pyocd_target')} via {probe.get('unique_id')}"
             if isinstance(probe, Mapping) else board)
    console.print(
        f"{where}: whole inference {m.whole_median:,} {m.units} "
        f"(calibrated pair {m.calibration}); {len(m.layers)} layers; {m.validity}"
    )
    for layer in m.layers:
        console.print(f"  {layer.index:>3} {layer.name:<24} {layer.op:<16} {layer.median:>14,}")
    console.print(f"bundle: {record.bundle}  ({record.execution.seconds:.2f} s)")
