"""Which bundle a folder names: itself, or the one bundle ``--output-dir`` received.

``hpx profile --output-dir DIR`` writes each run's bundle into a new folder inside DIR, so DIR is
what a user remembers and passes back. One bundle there is unambiguous; several are listed.
"""

from __future__ import annotations

from pathlib import Path

from hpx_core.errors import ResultsError
from hpx_core.results.verify import MANIFEST


def bundles_in(folder: Path) -> list[Path]:
    """The bundles directly inside ``folder`` (unfinished ``.tmp-`` ones left out), by name."""
    if not folder.is_dir():
        return []
    return sorted(
        p for p in folder.iterdir()
        if p.is_dir() and not p.name.startswith(".") and (p / MANIFEST).is_file()
    )


def bundle_in(path: Path) -> Path:
    """``path`` when it is a bundle (or nothing hpx wrote), else the one bundle inside it."""
    if (path / MANIFEST).exists():
        return path
    found = bundles_in(path)
    if len(found) > 1:
        raise ResultsError(
            f"{path} holds {len(found)} result bundles, not one",
            "name one of them: " + ", ".join(str(p) for p in found),
        )
    return found[0] if found else path
