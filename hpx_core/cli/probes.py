"""`hpx probes`: the debug probes pyocd sees, with the unique IDs `--probe` takes."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from rich.table import Table

from hpx_core.build.render import Project
from hpx_core.cli.app import app, console
from hpx_core.probe.probes import list_probes
from hpx_core.probe.pyocd_api import pyocd_api
from hpx_core.probe.record import ProbeRecord, run_and_record_on_probe
from hpx_core.probe.runner import ProbeSettings
from hpx_core.probe.selftest import run_silicon_selftest
from hpx_core.selftest import SelftestFailedError


@app.command()
def probes() -> None:
    """List attached debug probes (J-Link, CMSIS-DAP, ST-Link) and their unique IDs."""
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


def print_probe_record(record: ProbeRecord) -> None:
    """The summary of a run on a board (shared by the commands that run through a probe)."""
    m = record.measurement
    out = record.output
    console.print(
        f"{out.target} via {out.probe.unique_id}: whole inference {m.whole_median:,} {m.units} "
        f"(calibrated pair {m.calibration}); {len(m.layers)} layers; {m.validity}"
    )
    for layer in m.layers:
        console.print(f"  {layer.index:>3} {layer.name:<24} {layer.op:<16} {layer.median:>14,}")
    console.print(f"bundle: {record.bundle}  (flash + capture {out.seconds:.2f} s)")


def run_built_on_probe(
    project: Project,
    stamp: Mapping[str, object],
    results_dir: Path,
    timeout: float,
    probe: str | None,
    packs: list[Path],
) -> None:
    """`hpx run` for a silicon board: flash, capture over RTT, bundle."""
    record = run_and_record_on_probe(
        project.board,
        project.elf,
        results_dir,
        engine=project.settings.engine,
        probe=probe,
        settings=ProbeSettings(timeout=timeout, packs=packs),
        toolchain=str(stamp.get("toolchain_version", "")),
        build={
            k: stamp[k]
            for k in ("toolchain", "toolchain_version", "fingerprint", "sizes")
            if k in stamp
        },
    )
    print_probe_record(record)


def silicon_selftest(
    board: str, work_dir: Path, results_dir: Path, probe: str | None, packs: list[Path]
) -> None:
    """`hpx selftest` on an Apollo board: the calibration loops in cycles, through the probe."""
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
