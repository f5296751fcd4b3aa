"""``hpx analyze MODEL``: what is inside a model, layer by layer (host only, no board)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from hpx_core.cli.app import app, console

if TYPE_CHECKING:
    from hpx_core.models import ModelInfo, TensorInfo
    from hpx_core.plugins import Registry


@app.command()
def analyze(
    model: Annotated[
        Path, typer.Argument(help="A .tflite model, or one in a format an installed engine reads.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """Per-layer operators, output shapes, MACs and parameters of a model."""
    from hpx_core.contract import NotesRequest
    from hpx_core.hooks import EngineHooks
    from hpx_core.models.report import model_report
    from hpx_core.plugins import default_registry
    from hpx_core.reading import load_model

    registry = default_registry()
    info = load_model(model, registry)
    notes = EngineHooks(registry).describe_model(NotesRequest(info))
    if as_json:
        report = model_report(info)
        report["engine_notes"] = {engine: {n.label: n.value for n in found}
                                  for engine, found in notes.items()}
        typer.echo(json.dumps(report, indent=2))
        return
    console.print(_layer_table(info))
    for line in _summary(info):
        console.print(line)
    for engine, found in notes.items():
        for note in found:
            label = f"[yellow]{escape(note.label)}[/]" if note.warning else escape(note.label)
            console.print(f"{label} ({engine}): {escape(note.value)}")
    for line in _absent(info, registry):
        console.print(line)


def _number(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _namespaced(info: ModelInfo) -> bool:
    """Whether the format names operators with namespaces (its reader fills them)."""
    return any(op.namespace is not None for op in info.operators)


def _layer_table(info: ModelInfo) -> Table:
    namespaced = _namespaced(info)
    table = Table("#", "operator", "output shape", "MACs", "params", title=info.path.name)
    if namespaced:
        table.add_column("namespace")
    for op in info.operators:
        shape = " ".join(str(list(s)) for s in op.outputs) or "-"
        row = [str(op.index), op.qualified_name, shape, _number(op.macs), _number(op.params)]
        if namespaced:
            row.append(op.namespace or "-")
        table.add_row(*row)
    totals = ["", f"{len(info.operators)} layers", "", _number(info.total_macs)]
    table.add_row(*totals, _number(info.total_params), *([""] if namespaced else []),
                  style="bold")
    return table


def _tensors(tensors: tuple[TensorInfo, ...]) -> str:
    return (
        ", ".join(f"{t.name} {t.dtype}{list(t.shape)} ({_number(t.size_bytes)} B)" for t in tensors)
        or "-"
    )


def _summary(info: ModelInfo) -> list[str]:
    lines = [
        f"format {info.format}, {info.size_bytes:,} bytes, sha256 {info.sha256}",
        f"inputs:  {_tensors(info.inputs)}",
        f"outputs: {_tensors(info.outputs)}",
        f"weights: {info.weight_bytes:,} bytes",
    ]
    uncounted = [op.qualified_name for op in info.operators if op.macs is None]
    if uncounted:
        lines.append(f"MACs not counted (no arithmetic rule): {', '.join(sorted(set(uncounted)))}")
    if info.format == "tflite":
        lines.append(f"op resolver: {', '.join(info.resolver_ops)}")
        if info.var_handle_count:
            lines.append(f"resource variables (VAR_HANDLE): {info.var_handle_count}")
        return lines
    if not _namespaced(info):  # what else a format has, its engine says (its notes)
        return lines
    namespaces = ", ".join(f"{k} {v}" for k, v in sorted(info.namespaces().items()))
    lines.append(f"operator namespaces: {namespaces or '-'}")
    lines.append(
        f"planned memory: {_number(info.planned_arena_bytes)} bytes {list(info.planned_memory)}"
    )
    return lines


def _absent(info: ModelInfo, registry: Registry) -> list[str]:
    """Fields an older converter left empty, and which installed engines get them supplied."""
    lines = []
    for field in info.absent_fields:
        engines = sorted(name for name, entry in registry.engines.items()
                         if field in entry.descriptor.model_fields)
        needed = (f"hpx supplies it in a copy for {', '.join(engines)}" if engines
                  else "no installed engine needs it")
        lines.append(f"[yellow]absent field[/] {escape(field)}: {needed}")
    return lines
