"""A plugin that imports fine but fails when asked for its engines."""

from __future__ import annotations

from hpx_core.sdk import EngineDescriptor, hookimpl


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    raise RuntimeError("descriptor table is corrupt")
