"""Match manifests (``hpx_match: 1``) read as the core reads them, for an engine whose
``hpx_match_manifest`` hook turns its exporter's own manifest into one."""

from __future__ import annotations

from hpx_core.compare.matching import parse_match_manifest

__all__ = ["parse_match_manifest"]
