"""`hpx calibrate`: fit per-class cycle costs on pairs of estimated and measured bundles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from hpx_core.atomic import write_atomic
from hpx_core.cli.app import app, console


@app.command()
def calibrate(
    bundles: Annotated[list[Path], typer.Argument(
        help="Pairs of bundles of one model: emulated with --estimate-for, and measured.")],
    output: Annotated[Path, typer.Option(
        "--output", "-o", help="Where to write the calibration (JSON).")] = Path(
            "calibration.json"),
) -> None:
    """Fit each instruction class's cycles on your board; report the leave-one-model-out
    error; --estimate-for uses the file with --calibration."""
    from hpx_core.insight.calibrate import calibrate as fit_bundles

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
    write_atomic(output, json.dumps(result.document(), indent=2, allow_nan=False) + "\n")
    console.print(f"written: {output}")
