"""`hpx validate`: a data set through the model's firmware on the emulated board, each sample
compared with the engine's host reference, written to a validation bundle."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from hpx_core.cli.app import app, console
from hpx_core.cli.main_commands import (
    MODEL_HELP,
    BackendOption,
    BoardOption,
    ConfigOption,
    EngineConfigOption,
    EngineOption,
    JobsOption,
    ToolchainOption,
    WorkDirOption,
    library_progress,
)


@app.command()
def validate(
    model: Annotated[Path | None, typer.Argument(help=MODEL_HELP)] = None,
    data: Annotated[Path | None, typer.Option(
        "--data", help="A .npy/.npz file, or a folder of .npy/.bin samples.")] = None,
    labels: Annotated[Path | None, typer.Option(
        "--labels", help="One class index per sample (.npy, or a text file a line each).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Only the first N samples.")] = None,
    config: ConfigOption = None,
    engine: EngineOption = None,
    backend: BackendOption = None,
    board: BoardOption = None,
    toolchain: ToolchainOption = None,
    engine_config: EngineConfigOption = None,
    output_dir: Annotated[Path | None, typer.Option(
        "--output-dir", help="Where the validation bundle goes.")] = None,
    work_dir: WorkDirOption = None,
    jobs: JobsOption = None,
) -> None:
    """Run a data set through the built firmware and compare every output with the host."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from hpx_core import api
    from hpx_core.config.command_line import CommandLine, engine_config_values
    from hpx_core.validation.bundle import validation_document, write_validation
    from hpx_core.validation.run import prepare
    from hpx_core.validation.run import validate as run_validation

    flags = CommandLine(model=model, engine=engine, backend=backend, board=board,
                        toolchain=toolchain, engine_config=engine_config_values(engine_config),
                        output_dir=output_dir, work_dir=work_dir, jobs=jobs, data=data,
                        labels=labels, limit=limit)
    registry = api.registry()
    with console.status("building") as status, library_progress(status):
        prepared = prepare(config, flags.overrides(), registry,
                           on_stage=lambda name: status.update(f"[bold]{name}[/]"))
    columns = (TextColumn("validating"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"))
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("samples", total=prepared.data.count, rate="")

        def advance(done: int, total: int, rate: float | None) -> None:
            bar.update(task, completed=done,
                       rate=f"{rate:,.0f} samples/s" if rate else "")

        found = run_validation(prepared, registry, progress=advance)
    bundle = write_validation(found, found.outcome.config.output.dir, registry)
    print_validation(validation_document(found))
    console.print(f"bundle: {bundle}", markup=False)


def print_validation(document: dict[str, Any]) -> None:
    from hpx_core.validation.data import saturation_warnings

    data, speed = document["data"], document["speed"]
    console.print(f"{data['samples']:,} samples" + (", labelled" if data["labelled"] else ""),
                  markup=False)
    for note in data["notes"]:
        console.print(f"  {note}", markup=False)
    console.print(f"  host reference: {data['reference']}", markup=False)
    for warning in saturation_warnings(data["saturated"]):
        console.print(warning, style="yellow", markup=False, highlight=False)
    for output in document["outputs"]:
        console.print(
            f"output {output['tensor']}: MAE {output['mean_abs_error']:.4g}, RMSE "
            f"{output['rmse']:.4g}, cosine {output['cosine']:.4f}, differing elements "
            f"{output['differing_share']:.2%} (largest {output['max_abs_diff']:g}) in "
            f"{output['differing_samples']:,} samples", markup=False)
        if "top1_agreement" in output:
            console.print(f"  top-1 agreement with the host: {output['top1_agreement']:.2%}",
                          markup=False)
        accuracy = output.get("accuracy")
        if accuracy:
            console.print(
                f"  accuracy on {accuracy['labelled']:,} labels: top-1 device "
                f"{accuracy['device_top1']:.2%} / host {accuracy['host_top1']:.2%}, top-"
                f"{accuracy['k']} device {accuracy['device_topk']:.2%} / host "
                f"{accuracy['host_topk']:.2%}", markup=False)
        worst = ", ".join(f"#{w['sample']} ({w['max_abs_diff']:g})" for w in output["worst"])
        if worst:
            console.print(f"  worst samples: {worst}", markup=False)
    if speed["resumed_samples"]:
        console.print(f"{speed['resumed_samples']:,} samples read from the windows an earlier "
                      "run of this firmware and data set kept", markup=False)
    if speed["samples_per_second"]:
        console.print(f"{speed['samples_per_second']:,.0f} samples/s on the device "
                      f"({speed['device_seconds']:.2f} s), {speed['seconds']:.1f} s in all",
                      markup=False)
