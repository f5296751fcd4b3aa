"""The loops test engine (tests/fixtures/plugins/hpx_loops_engine), in this process or another.

In this process it is a registry with that one engine; for an ``hpx`` subprocess it is
installed the way pip would make it visible: the package on ``PYTHONPATH`` beside a
``.dist-info`` folder that declares its ``hpx.engines`` entry point.
"""

from __future__ import annotations

import functools
import os
import sys
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from hpx_core.plugins import ENTRY_POINT_GROUP, Registry, load_registry

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "plugins" / "hpx_loops_engine"
MODULE = "hpx_loops_engine.plugin"


@functools.cache
def loops_registry() -> Registry:
    """A registry holding the installed engines and the loops engine."""
    if str(PACKAGE_ROOT) not in sys.path:
        sys.path.insert(0, str(PACKAGE_ROOT))
    installed = [e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name != "loops"]
    return load_registry(entries=[*installed, EntryPoint("loops", MODULE, ENTRY_POINT_GROUP)])


def loops_paths(root: Path, module: str = MODULE) -> tuple[Path, Path]:
    """The folders that make the loops engine installed: the package and, in ``root``, the
    ``.dist-info`` declaring its entry point (put both on ``sys.path`` or ``PYTHONPATH``);
    ``module`` is the plugin module it names (``hpx_loops_engine.bare``: no result extras)."""
    dist = root / "hpx_loops_engine-0.1.0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: hpx-loops-engine\nVersion: 0.1.0\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nloops = {module}\n", encoding="utf-8")
    return PACKAGE_ROOT, root


def loops_environment(root: Path) -> dict[str, str]:
    """Environment variables for an ``hpx`` subprocess that has the loops engine installed."""
    paths = [*map(str, loops_paths(root)), os.environ.get("PYTHONPATH", "")]
    return os.environ | {"PYTHONPATH": os.pathsep.join(p for p in paths if p)}
