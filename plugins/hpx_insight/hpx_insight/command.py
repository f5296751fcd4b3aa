"""`hpx calibrate`: fit per-class cycle costs on pairs of estimated and measured bundles, or
(``--memory``) measure each memory region's miss costs on a board with the memory probe.

The command reaches ``hpx`` through this distribution's ``hpx.commands`` entry point; the
core adds it to the command line by that name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from hpx_insight.energy_law import EnergyLaw

FILE_NAME = "calibration.json"


def calibrate(
    bundles: Annotated[list[Path] | None, typer.Argument(
        help="Pairs of bundles of one model: emulated with --estimate-for, and measured.")
    ] = None,
    memory: Annotated[bool, typer.Option(
        "--memory", help="Measure each memory region's miss costs on --board with the memory "
        "probe (through the debug probe) instead of fitting bundles.")] = False,
    board: Annotated[str | None, typer.Option(
        "--board", help="The Apollo board --memory measures.")] = None,
    clock: Annotated[str, typer.Option(
        "--clock", help="The performance mode --memory measures in: lp or hp.")] = "lp",
    probe: Annotated[str | None, typer.Option(
        "--probe", help="Probe unique ID, for --memory.")] = None,
    pack: Annotated[list[Path] | None, typer.Option(
        "--pack", help="CMSIS pack for pyocd, for --memory; repeatable.")] = None,
    work_dir: Annotated[Path, typer.Option(
        "--work-dir", help="Where --memory builds its firmware.")] = Path("hpx-work/calibrate"),
    output_dir: Annotated[Path | None, typer.Option(
        "--output-dir", help=f"Where to write the calibration ({FILE_NAME}; default: here)."),
    ] = None,
    output: Annotated[Path | None, typer.Option(
        "--output", "-o", hidden=True, help="The calibration file itself (earlier spelling).")
    ] = None,
) -> None:
    """Fit each instruction class's cycles (and, from bundles measured with --power, each
    layer's energy) on your board; report the error on what the fit did not see;
    --estimate-for uses the file with --calibration."""
    from rich.console import Console
    from rich.table import Table

    from hpx_core.sdk.passes import UsageError, write_atomic
    from hpx_insight.calibrate import calibrate as fit_bundles

    console = Console()

    if output is not None and output_dir is not None:
        raise UsageError("both --output-dir and --output name where the calibration goes",
                         "pass --output-dir only")
    if memory:
        from hpx_insight.memory_command import calibrate_memory

        if bundles or output is not None:
            raise UsageError("hpx calibrate --memory measures a board: it takes no bundles "
                             "and no --output", "give --board BOARD and, if you like, "
                             "--output-dir")
        calibrate_memory(board, clock, probe, pack or [], work_dir, output_dir or Path())
        return
    if not bundles:
        raise UsageError("hpx calibrate needs bundles, or --memory --board BOARD",
                         "give pairs of bundles of one model (emulated with --estimate-for, "
                         "and measured), or measure the memory with --memory")
    target = output if output is not None else (output_dir or Path()) / FILE_NAME
    result = fit_bundles(bundles)
    table = Table("class", "model (cycles/instr.)", "calibrated", title=(
        f"hpx calibrate: {result.board}, {result.rows} layers of {len(result.models)} "
        "model(s)"))
    for name, cost in result.costs.items():
        table.add_row(name, f"{result.prior[name]:.3f}", f"{cost:.3f}")
    console.print(table)
    if result.lomo_layer_error is None:
        console.print("leave-one-model-out error: needs bundles of two models or more")
    else:
        console.print(f"leave-one-model-out error: median {result.lomo_layer_error:.1%} per "
                      "layer; per model " + ", ".join(
                          f"{m[:12]} {e:+.1%}" for m, e in result.lomo_model_errors.items()))
    console.print(_energy_line(result.energy), markup=False)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(target, json.dumps(result.document(), indent=2, allow_nan=False) + "\n")
    console.print(f"written: {target}")


def _energy_line(law: EnergyLaw | None) -> str:
    """The energy law in one line, or why there is none."""
    if law is None:
        return ("energy: not fitted, the measured bundles have no energy (profile the board "
                "with --power)")
    terms = " + ".join(f"{c:.4g} x {name}" for name, c in law.per.items())
    error = ("needs two layers or more" if law.error is None
             else f"median {law.error:.1%} per layer")
    return (f"energy: uJ per layer = {terms}, from {law.layers} layers of {len(law.models)} "
            f"model(s); leave-one-{law.held_out}-out error: {error}")
