"""`hpx run`: run a built project on its emulated board and write a result bundle."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hpx_core.build import load_project
from hpx_core.build.fingerprint import read_stamp
from hpx_core.cli.app import app, console
from hpx_core.errors import BuildError
from hpx_core.run.session import run_and_record


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
    project = load_project(work_dir)
    stamp = read_stamp(project.root / "hpx-build.json")
    if not project.elf.is_file() or not stamp:
        raise BuildError(f"{work_dir} has not been built", f"run `hpx build --work-dir {work_dir}`")
    if project.board.runner == "probe":
        from hpx_core.cli.probes import run_built_on_probe

        run_built_on_probe(project, stamp, results_dir, timeout, probe, pack or [])
        return
    record = run_and_record(
        project.board,
        project.elf,
        results_dir,
        engine=project.settings.engine,
        timeout=timeout,
        toolchain=str(stamp.get("toolchain_version", "")),
        build={
            k: stamp[k]
            for k in ("toolchain", "toolchain_version", "fingerprint", "sizes")
            if k in stamp
        },
    )
    m = record.measurement
    console.print(
        f"{project.board.name}: whole inference {m.whole_median:,} {m.units} "
        f"(calibrated pair {m.calibration}); {len(m.layers)} layers; {m.validity}"
    )
    for layer in m.layers:
        console.print(f"  {layer.index:>3} {layer.name:<24} {layer.op:<16} {layer.median:>14,}")
    console.print(f"bundle: {record.bundle}  (QEMU {record.output.seconds:.2f} s)")
