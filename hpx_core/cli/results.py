"""`hpx results verify`: check a result bundle against its manifest."""

from __future__ import annotations

from pathlib import Path

from hpx_core.cli.app import console, results_app


@results_app.command("verify")
def verify(bundle: Path) -> None:
    """Check every file of BUNDLE (or of the one bundle in an --output-dir) against the
    SHA-256 and size in its manifest."""
    from hpx_core.results import verify_bundle
    from hpx_core.results.locate import bundle_in

    check = verify_bundle(bundle_in(bundle))
    console.print(
        f"{check.path}: {len(check.files)} files match the manifest (status {check.status})"
    )
