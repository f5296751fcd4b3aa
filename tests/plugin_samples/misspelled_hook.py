"""A plugin whose hook name has a typo: pluggy's check_pending must catch it."""

from __future__ import annotations

from hpx_core.sdk import hookimpl


@hookimpl
def hpx_engine() -> list[object]:
    return []
