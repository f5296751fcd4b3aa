"""`hpx results show DIR`: the summary and per-layer table of a verified bundle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from hpx_core.cli.app import console, results_app

if TYPE_CHECKING:
    from hpx_core.results.view import BundleView


def _summary(view: BundleView) -> Table:
    table = Table("", "", title=f"{view.label}  ({view.path})", show_header=False)
    whole = "-" if view.whole_median is None else f"{view.whole_median:,} {view.units}"
    layers = "-" if view.layer_sum is None else f"{view.layer_sum:,} {view.units}"
    rows = [
        ("status", view.status),
        ("validity", view.validity + (f": {'; '.join(view.issues)}" if view.issues else "")),
        ("whole inference (median)", whole),
        ("sum of layers", layers),
        ("toolchain", view.toolchain or "-"),
        ("model sha256", view.model_sha256 or "-"),
        *((f"{key} bytes", f"{value:,}") for key, value in sorted(view.sizes.items())),
    ]
    if view.outputs is not None:
        rows.append(("outputs", view.outputs.sentence().removeprefix("outputs: ")))
    if view.memory is not None:
        from hpx_core.results.memory_text import summary_lines

        rows += [(f"memory: {name}", text) for name, text in
                 (line.split(": ", 1) for line in summary_lines(view.memory))]
    if view.error:
        rows.append(("error", view.error))
    for key, value in rows:
        table.add_row(key, value)
    return table


def _layers(view: BundleView, top: int) -> Table:
    total = view.layer_sum or 0
    ordered = sorted(view.layers, key=lambda x: -x.median)[:top] if top > 0 else view.layers
    title = f"layers ({view.units})" + (f", top {len(ordered)} by count" if top > 0 else "")
    events = list(dict.fromkeys(e for layer in view.layers for e in layer.events))
    check = view.layer_check
    memory = view.memory
    if memory is not None:
        from hpx_core.results.memory_text import layer_cells, layer_columns
    table = Table("#", "layer", "op", "calls", "median", "share", "spread", *events,
                  *(("vs host",) if check else ()),
                  *(layer_columns(memory) if memory else ()), title=title)
    for layer in ordered:
        status = [check.statuses.get(layer.index, "not checked")] if check else []
        share = f"{100 * layer.median / total:.2f}%" if total else "-"
        table.add_row(
            str(layer.index),
            layer.name,
            layer.op,
            str(layer.calls),
            f"{layer.median:,}",
            share,
            f"{layer.spread:,}",
            *(f"{layer.events[e]:,}" if e in layer.events else "-" for e in events),
            *status,
            *(layer_cells(memory, layer.index) if memory else ()),
        )
    return table


def _show_validation(bundle: Path, html: Path | None) -> None:
    """A validation bundle: its figures as ``hpx validate`` printed them, and its page."""
    from hpx_core.atomic import write_atomic
    from hpx_core.cli.validate import print_validation
    from hpx_core.validation.bundle import read_validation

    document = read_validation(bundle)
    print_validation(document)
    if html is not None:
        from hpx_core.validation.page import validation_page

        console.print(f"wrote {write_atomic(html, validation_page(document))}", markup=False)


@results_app.command("show")
def show(
    bundle: Annotated[Path, typer.Argument(help="A result bundle folder.")],
    top: Annotated[int, typer.Option("--top", help="Only the N largest layers (0: all).")] = 0,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write a self-contained HTML report here.")
    ] = None,
    overlay: Annotated[
        Path | None,
        typer.Option(
            "--overlay", help="Also write per-layer counts as Model Explorer node data here."
        ),
    ] = None,
) -> None:
    """Verify BUNDLE, then print its summary and per-layer table."""
    from hpx_core.atomic import write_atomic
    from hpx_core.validation.bundle import is_validation_bundle

    if is_validation_bundle(bundle):
        _show_validation(bundle, html)
        return
    from hpx_core.report.model_explorer import bundle_node_data
    from hpx_core.results.check_view import layer_check_line
    from hpx_core.results.view import load_view

    view = load_view(bundle)
    console.print(_summary(view))
    if view.layers:
        console.print(_layers(view, top))
    if view.layer_check is not None:
        console.print(layer_check_line(view.layer_check), markup=False, highlight=False)
    if html is not None:
        from hpx_core.report import bundle_report  # matplotlib only when a report is asked

        console.print(f"wrote {write_atomic(html, bundle_report(view))}", markup=False)
    if overlay is not None:
        text = json.dumps(bundle_node_data(view), indent=2) + "\n"
        console.print(f"wrote {write_atomic(overlay, text)}", markup=False)
