"""Pinned engine sources: the compatibility baseline, the cache, overrides and version floors."""

from hpx_core.sources.baseline import Baseline, RepoPin, SubmodulePin, load_baseline
from hpx_core.sources.cache import SourceCache, cache_info, cache_root, clean_cache, pin_states
from hpx_core.sources.licensing import BoardLike, Verdict, check_may_run, may_run
from hpx_core.sources.materialize import (
    materialize,
    materialize_board,
    materialize_pin,
    materialize_pins,
)
from hpx_core.sources.versions import package_status, require_heliart, require_package

__all__ = [
    "Baseline",
    "BoardLike",
    "RepoPin",
    "SourceCache",
    "SubmodulePin",
    "Verdict",
    "cache_info",
    "cache_root",
    "check_may_run",
    "clean_cache",
    "load_baseline",
    "materialize",
    "materialize_board",
    "materialize_pin",
    "materialize_pins",
    "may_run",
    "package_status",
    "pin_states",
    "require_heliart",
    "require_package",
]
