"""`hpx run`: run built firmware on its board (QEMU, the probe, or a board farm's place) and
write a result bundle.

What runs is a build bundle (``hpx build MODEL``), the work folder a build bundle names, or any
built project folder (``hpx build --board``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import attrs
import typer

from hpx_core.cli.app import app, console
from hpx_core.cli.main_commands import (
    NoWaitOption,
    OutputDirOption,
    PlaceOption,
    SshKeyOption,
    WaitOption,
    note,
)
from hpx_core.errors import BuildError, UsageError

if TYPE_CHECKING:
    from hpx_core.firmware import Project
    from hpx_core.results.build_bundle import BuiltFirmware
    from hpx_core.run import Runner, RunRecord

PROJECT_DIR = Path("hpx-work/build")


@app.command()
def run(
    built: Annotated[
        Path | None,
        typer.Argument(help="A build bundle (hpx build MODEL) or a built project folder."),
    ] = None,
    work_dir: Annotated[
        Path | None, typer.Option("--work-dir", help=f"A built project ({PROJECT_DIR}).")
    ] = None,
    output_dir: OutputDirOption = Path("hpx-results"),
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds.")] = 60.0,
    probe: Annotated[
        str | None, typer.Option("--probe", help="Probe unique ID (silicon boards).")
    ] = None,
    pack: Annotated[
        list[Path] | None, typer.Option("--pack", help="CMSIS pack for pyocd; repeatable.")
    ] = None,
    place: PlaceOption = None,
    wait: WaitOption = None,
    no_wait: NoWaitOption = False,
    ssh_key: SshKeyOption = None,
) -> None:
    """Run built firmware; a result bundle is written whether it succeeds or not."""
    from hpx_core.boards import get_board
    from hpx_core.config.schema import FarmSection
    from hpx_core.firmware import load_project
    from hpx_core.results.build_bundle import is_build_bundle, read_build_bundle
    from hpx_core.runners import runner_for

    if built is not None and work_dir is not None:
        raise UsageError("pass a build bundle or --work-dir, not both", "drop one of them")
    target = built or work_dir or PROJECT_DIR
    farm = FarmSection(ssh_key=ssh_key)  # the coordinator: LG_COORDINATOR
    if no_wait:
        farm = attrs.evolve(farm, wait=0.0)
    elif wait is not None:
        farm = attrs.evolve(farm, wait=wait)
    if is_build_bundle(target):
        firmware = read_build_bundle(target)
        board = get_board(firmware.board)
        runner = runner_for(board, timeout=timeout, probe=probe, packs=pack or [],
                            place=place, farm=farm, notify=note)
        print_record(board.name, run_bundle(runner, firmware, output_dir))
    else:
        project = load_project(target)
        runner = runner_for(project.board, timeout=timeout, probe=probe, packs=pack or [],
                            place=place, farm=farm, notify=note)
        print_record(project.board.name, _run_project(project, runner, output_dir))


def run_bundle(runner: Runner, firmware: BuiltFirmware, results_dir: Path) -> RunRecord:
    """Run the ELF of a verified build bundle; the result bundle keeps the build's facts."""
    from hpx_core.run import run_and_record

    return run_and_record(
        runner, firmware.elf, results_dir, engine=firmware.engine, backend=firmware.backend,
        engine_libraries=firmware.engine_libraries,
        toolchain=firmware.toolchain, model_sha256=firmware.model_sha256,
        engine_code=firmware.engine_code, config=firmware.config, build=firmware.build,
        provenance_extra={**firmware.provenance, "build_bundle": str(firmware.path)},
        extra={"kernel_checks": list(firmware.kernel_checks)},
    )


def _run_project(project: Project, runner: Runner, results_dir: Path) -> RunRecord:
    from hpx_core.firmware.fingerprint import read_stamp
    from hpx_core.run import run_and_record

    stamp = read_stamp(project.root / "hpx-build.json")
    if not project.elf.is_file() or not stamp:
        raise BuildError(f"{project.root} has not been built",
                         f"run `hpx build --work-dir {project.root}`")
    sizes = stamp.get("sizes")
    build: dict[str, object] = {k: stamp[k] for k in ("toolchain", "toolchain_version",
                                                       "fingerprint") if k in stamp}
    if isinstance(sizes, dict):  # the stamp keeps the sections too; bundles keep the three sums
        build["sizes"] = {k: sizes[k] for k in ("text", "data", "bss") if k in sizes}
        build["sections"] = sizes.get("sections", {})
    return run_and_record(runner, project.elf, results_dir, engine=project.settings.engine,
                          toolchain=str(stamp.get("toolchain_version", "")), build=build)


def print_record(board: str, record: RunRecord) -> None:
    """The summary of one run, whatever ran it."""
    m = record.measurement
    details = record.execution.details
    probe = details.get("probe")
    where = (f"{details.get('device')} via {probe.get('unique_id')} "
             f"({details.get('flash_path')})" if isinstance(probe, Mapping) else board)
    place = details.get("place")
    if isinstance(place, Mapping):
        where += f" on place {place.get('name')} (exporter {place.get('exporter')})"
    console.print(
        f"{where}: whole inference {m.whole_median:,} {m.units} "
        f"(calibrated pair {m.calibration}); {len(m.layers)} layers; {m.validity}"
    )
    for layer in m.layers:
        console.print(f"  {layer.index:>3} {layer.name:<24} {layer.op:<16} {layer.median:>14,}")
    console.print(f"bundle: {record.bundle}  ({record.execution.seconds:.2f} s)")
