"""An engine's pinned sources: its pins.toml loaded, the license gate, checkouts materialized
into the cache, and the version floors of sources and Python packages."""

from __future__ import annotations

from hpx_core.sources import (
    PackagePin,
    PinSet,
    RepoPin,
    SourceCache,
    check_may_run,
    load_pins,
    materialize,
    materialize_pins,
    package_status,
    parse_version,
    require_min_version,
    require_package,
    source_version,
)
from hpx_core.tool_version import version_line

__all__ = [
    "PackagePin",
    "PinSet",
    "RepoPin",
    "SourceCache",
    "check_may_run",
    "load_pins",
    "materialize",
    "materialize_pins",
    "package_status",
    "parse_version",
    "require_min_version",
    "require_package",
    "source_version",
    "version_line",
]
