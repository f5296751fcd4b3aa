"""`hpx compare BASE CAND`: deltas between two verified bundles, optionally gated by a policy."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from hpx_core.cli.app import app, console
from hpx_core.errors import UsageError

if TYPE_CHECKING:
    from hpx_core.compare.diff import Comparison
    from hpx_core.compare.policy import PolicyOutcome


def _num(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _signed(value: int | None) -> str:
    return "-" if value is None else f"{value:+,}"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}%"


def _style(delta: int | None) -> str:
    return "red" if (delta or 0) > 0 else ("green" if (delta or 0) < 0 else "")


def _dimensions(c: Comparison) -> Table:
    table = Table("dimension", "base", "candidate", title="runs")
    for d in c.dimensions:
        table.add_row(d.name, d.base, d.candidate, style="bold yellow" if d.differs else None)
    return table


def _totals(c: Comparison) -> Table:
    table = Table("total", "base", "candidate", "delta", "delta %", title="totals")
    for t in c.totals:
        table.add_row(
            f"{t.name} ({t.unit})",
            _num(t.base),
            _num(t.candidate),
            f"[{_style(t.delta)}]{_signed(t.delta)}" if _style(t.delta) else _signed(t.delta),
            _pct(t.pct),
        )
    return table


def _memory(c: Comparison) -> Table:
    """The memory pass's figures of both runs (a policy gates them by these names)."""
    table = Table("memory", "base", "candidate", "delta", "delta %", title="memory (bytes)")
    for t in c.memory:
        style = _style(t.delta)
        table.add_row(t.name, _num(t.base), _num(t.candidate),
                      f"[{style}]{_signed(t.delta)}" if style else _signed(t.delta), _pct(t.pct))
    return table


def _layers(c: Comparison, top: int) -> Table:
    shown = c.layers[:top] if top > 0 else c.layers
    table = Table(
        "#",
        "layer",
        "op",
        "base",
        "candidate",
        "delta",
        "delta %",
        "base share",
        title=f"layers by impact (top {len(shown)} of {len(c.layers)}, {c.base.units})",
    )
    for d in shown:
        style = _style(d.delta)
        delta = f"[{style}]{_signed(d.delta)}" if style else _signed(d.delta)
        table.add_row(
            str(d.candidate.index),
            d.candidate.name,
            d.candidate.op,
            _num(d.base.median),
            _num(d.candidate.median),
            delta,
            _pct(d.pct),
            f"{d.base_share:.2f}%",
        )
    return table


def _aligned(c: Comparison) -> Table:
    """Both programs in order, as the match manifest pairs them (unpaired rows show '-')."""
    table = Table("base #", "base layer", "candidate #", "candidate layer", "base",
                  "candidate", "delta", "region",
                  title=f"layers in program order ({c.base.units})")
    for row in c.aligned:
        b, k = row.base, row.candidate
        table.add_row(
            "-" if b is None else str(b.index), "-" if b is None else b.name,
            "-" if k is None else str(k.index), "-" if k is None else k.name,
            _num(None if b is None else b.median), _num(None if k is None else k.median),
            _signed(row.delta), row.region or "",
        )
    return table


def _pass_tables(c: Comparison, top: int) -> list[Any]:
    """What installed passes show of the files both bundles hold: never gated."""
    from hpx_core.results.extensions import bundle_extensions, documents_of

    found: list[Any] = []
    for extension in bundle_extensions():
        base = documents_of(extension, c.base.pass_documents)
        candidate = documents_of(extension, c.candidate.pass_documents)
        if base and candidate:
            found += extension.compare(base, candidate, top)
    return found


def _policy(outcome: PolicyOutcome) -> None:
    verdict = "[green]passed" if outcome.passed else "[red]FAILED"
    console.print(
        f"policy {outcome.policy.source}: {verdict}[/] "
        f"({len(outcome.failures)} of {len(outcome.checks)} checks failed)"
    )
    for check in outcome.checks:
        if check.status != "pass":
            console.print(f"  {check.status}: {check.message}", markup=False)


@app.command("compare")
def compare_command(
    base: Annotated[
        Path, typer.Argument(help="The base result bundle, or the --output-dir holding it.")
    ],
    candidate: Annotated[
        Path, typer.Argument(help="The candidate result bundle, or the --output-dir holding it.")
    ],
    top: Annotated[int, typer.Option("--top", help="Layers shown (0: all).")] = 10,
    output_dir: Annotated[
        Path | None,
        typer.Option(
            "--output-dir",
            help="Write comparison.json, layers.csv, report.html and a Model "
            "Explorer overlay here.",
        ),
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option(
            "--policy", help="Regression policy YAML, or 'default'; exit 1 when it fails."
        ),
    ] = None,
    junit: Annotated[
        Path | None,
        typer.Option(
            "--junit", help="Write the policy checks as JUnit XML (default policy if none)."
        ),
    ] = None,
    manifest: Annotated[
        Path | None,
        typer.Option(
            "--manifest",
            help="Match manifest allowing bundles of two different models, or an engine's "
            "export manifest (e.g. tier1_manifest.json).",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="The model of the export manifest the bundles ran."),
    ] = None,
) -> None:
    """Compare two result bundles (verified first), or two matrix folders cell by cell."""
    from hpx_core.compare.run import RegressionError, run_compare
    from hpx_core.matrix import is_matrix_folder
    from hpx_core.validation.bundle import is_validation_bundle

    if is_validation_bundle(base) or is_validation_bundle(candidate):
        _compare_validations(base, candidate, policy)
        return
    if is_matrix_folder(base) and is_matrix_folder(candidate):
        if manifest is not None or model is not None:
            raise UsageError("--manifest and --model compare two bundles, not two matrices",
                             "drop them, or point at two bundles of the matrices")
        _compare_matrices(base, candidate, policy, junit, output_dir)
        return
    result = run_compare(
        base, candidate, policy=policy, junit=junit, manifest=manifest, model=model,
        output_dir=output_dir
    )
    c = result.comparison
    for given, view in ((base, c.base), (candidate, c.candidate)):
        if view.path != given:
            console.print(f"{given}: the bundle {view.path.name}", markup=False)
    console.print(_dimensions(c))
    console.print(_totals(c))
    if c.memory:
        console.print(_memory(c))
    if c.divergence is not None:
        console.print(f"[yellow]{c.divergence.message}[/]", highlight=False)
    elif c.aligned:
        console.print(_aligned(c))
    else:
        console.print(_layers(c, top))
    for extra in _pass_tables(c, top):
        console.print(extra)
    for note in c.notes:
        console.print(f"note: {note}", markup=False)
    for path in result.written:
        console.print(f"wrote {path}", markup=False)
    if result.outcome is not None:
        _policy(result.outcome)
        if not result.outcome.passed:
            raise RegressionError(
                f"the candidate regressed: {len(result.outcome.failures)} policy checks failed",
                "see the checks above" + (f" and {junit}" if junit else ""),
            )


def _compare_validations(base: Path, candidate: Path, policy: str | None) -> None:
    """Two ``hpx validate`` bundles: accuracy, agreement and error per output, gated by the
    policy's ``validation`` section."""
    from hpx_core.compare.run import RegressionError
    from hpx_core.validation.bundle import is_validation_bundle
    from hpx_core.validation.compare import compare_validations, judge, load_validation_policy

    if not (is_validation_bundle(base) and is_validation_bundle(candidate)):
        raise UsageError("a validation bundle compares only with another validation bundle",
                         "give two folders hpx validate wrote")
    rows = compare_validations(base, candidate)
    table = Table("output", "figure", "base", "candidate", title="validation")
    for row in rows:
        shown = [("-" if v is None else f"{v:.4g}" + ("" if row.figure == "mean_abs_error"
                                                       else "%")) for v in (row.base,
                                                                           row.candidate)]
        table.add_row(row.output, row.figure, *shown)
    console.print(table)
    rules = load_validation_policy(policy)
    if rules is None:
        return
    gates = judge(rows, rules)
    failed = [g for g in gates if not g.passed]
    verdict = "[green]passed" if not failed else "[red]FAILED"
    console.print(f"policy {rules.source}: {verdict}[/] ({len(failed)} of {len(gates)} checks "
                  "failed)")
    for gate in failed:
        console.print(f"  fail: {gate.message}", markup=False)
    if failed:
        raise RegressionError(f"the candidate's validation regressed: {len(failed)} policy "
                              "checks failed", "see the checks above")


def _compare_matrices(base: Path, candidate: Path, policy: str | None, junit: Path | None,
                      output_dir: Path | None) -> None:
    from hpx_core.compare.run import RegressionError
    from hpx_core.matrix.compare import (
        compare_matrices,
        write_matrix_comparison,
        write_matrix_junit,
    )

    result = compare_matrices(base, candidate, policy)
    table = Table("cell", "verdict", "base", "candidate", "delta", "delta %",
                  title=f"matrices: {base} -> {candidate} (whole inference)")
    for cell in result.cells:
        total = (next((t for t in cell.comparison.totals if t.name == "whole inference"), None)
                 if cell.comparison else None)
        verdict = {"passed": "[green]passed", "regressed": "[red]REGRESSED"}.get(
            cell.verdict, f"[yellow]{cell.verdict}")
        table.add_row(cell.id, verdict, _num(total.base if total else None),
                      _num(total.candidate if total else None),
                      _signed(total.delta if total else None), _pct(total.pct if total else None))
    console.print(table)
    for cell in result.cells:
        if cell.reason:
            console.print(f"  {cell.id}: {cell.reason}", markup=False)
        for check in cell.outcome.failures if cell.outcome else ():
            console.print(f"  {cell.id}: {check.message}", markup=False)
    written = [write_matrix_junit(junit, result)] if junit is not None else []
    if output_dir is not None:
        written.append(write_matrix_comparison(output_dir, result))
    for path in written:
        console.print(f"wrote {path}", markup=False)
    if not result.passed:
        regressed = [c for c in result.cells if c.verdict == "regressed"]
        raise RegressionError(f"{len(regressed)} of {len(result.cells)} cells regressed",
                              "see the checks above" + (f" and {junit}" if junit else ""))
