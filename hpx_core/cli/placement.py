"""Printing a placement report (used by `hpx build`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpx_core.cli.app import console

if TYPE_CHECKING:
    from hpx_core.firmware.placement import PlacementReport


def print_placement(report: PlacementReport) -> None:
    """One line per memory region: used and free bytes; then any planned buffer's place."""
    console.print(f"  placement on {report.board} checked:")
    for use in report.regions:
        r = use.region
        console.print(
            f"    {r.name:<12} {r.use:<9} {r.origin:#010x} {use.used:>9,} B used "
            f"{use.free:>10,} B free of {r.length:,}"
        )
    for placed in report.buffers:
        console.print(
            f"    {placed.buffer.what} {placed.buffer.symbol}: {placed.size:,} B at "
            f"{placed.address:#010x} in {placed.region}"
        )
