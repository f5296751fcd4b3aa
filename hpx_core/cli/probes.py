"""`hpx probes`: the debug probes pyocd sees, with the unique IDs `--probe` takes."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from hpx_core.cli.app import app, console


@app.command()
def probes() -> None:
    """List attached debug probes (J-Link, CMSIS-DAP, ST-Link) and their unique IDs."""
    from hpx_core.probe.probes import list_probes
    from hpx_core.probe.pyocd_api import pyocd_api

    api = pyocd_api()
    found = list_probes(api)
    if not found:
        console.print(
            f"no debug probe attached (pyocd {api.version}); `hpx build` works without one"
        )
        return
    table = Table("unique ID", "probe", "vendor", "product", title=f"pyocd {api.version}")
    for probe in found:
        table.add_row(probe.unique_id, probe.description, probe.vendor, probe.product)
    console.print(table)


def silicon_selftest(
    board: str, work_dir: Path, results_dir: Path, probe: str | None, packs: list[Path]
) -> None:
    """`hpx selftest` on an Apollo board: the calibration loops in cycles, through the probe."""
    from hpx_core.selftest.probe import run_silicon_selftest
    from hpx_core.selftest.run import SelftestFailedError

    report = run_silicon_selftest(board, work_dir, results_dir, probe=probe, packs=packs)
    table = Table("check", "ok", "detail", title=f"hpx selftest on {report.board} (cycles)")
    for check in report.checks:
        table.add_row(check.name, "yes" if check.passed else "NO", check.detail)
    console.print(table)
    console.print(f"bundles: {', '.join(str(r.bundle) for r in report.runs)}")
    if not report.passed:
        raise SelftestFailedError(
            f"selftest failed on {report.board}",
            "the counts above break the core's bounds; check the board and its clock",
        )
    console.print(f"selftest passed on {report.board}")
