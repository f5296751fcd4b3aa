"""What a run records about itself: the resolved config with origins, and where its sources
came from. Result bundles, build bundles and work-folder keys all read these."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hpx_core.config.validate import ValidatedConfig
from hpx_core.contract import SourceSet
from hpx_core.sources import PinSet


def config_json(validated: ValidatedConfig) -> dict[str, Any]:
    """The resolved config with each value's origin, JSON-ready, for the bundle."""
    values = validated.values()
    return {v.path: {"value": plain(v.value), "from": v.origin} for v in values} | {
        "engine.config": plain(validated.engine_values()) or None
    }


NOT_INPUTS = ("output.", "target.probe", "target.place", "farm.", "build.offline", "build.jobs",
              "build.work_dir")
"""Settings that do not change a byte of the generated project or the firmware."""


def firmware_settings(validated: ValidatedConfig) -> dict[str, Any]:
    """The resolved values that shape the firmware (not where outputs go, nor build speed)."""
    resolved = config_json(validated)
    return {
        path: entry["value"] for path, entry in resolved.items()
        if path != "engine.config" and not path.startswith(NOT_INPUTS)
    } | {"engine.config": resolved["engine.config"]}


def source_provenance(sources: SourceSet | None, catalog: PinSet) -> dict[str, Any]:
    """Each repository the firmware was built from: URL, commit, license, who pinned it."""
    if sources is None:
        return {}
    owners = catalog.declared_by
    return {
        "sources": sources.provenance,
        "repositories": [
            {"name": r.name, "url": r.url, "commit": r.commit, "license": r.license,
             "declared_by": owners.get(r.name, "unknown")}
            for r in sources.repos
        ],
    }


def plain(value: Any) -> Any:
    """``value`` with paths as strings and tuples as lists (JSON-ready)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value
