"""hpx's cache: where it is, and JSON documents kept there by what decides them (an engine's
host outputs, the inputs it made)."""

from __future__ import annotations

from hpx_core.cachedir import cache_root
from hpx_core.kept import KeptFolder

__all__ = ["KeptFolder", "cache_root"]
