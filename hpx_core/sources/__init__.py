"""Pinned engine sources: pin declarations, the cache, overrides, licenses and version floors."""

from hpx_core.cachedir import cache_root
from hpx_core.sources.cache import SourceCache, cache_info, clean_cache, pin_states
from hpx_core.sources.licensing import BoardLike, Verdict, check_may_run, may_run
from hpx_core.sources.materialize import (
    materialize,
    materialize_board,
    materialize_pin,
    materialize_pins,
)
from hpx_core.sources.pins import (
    PackagePin,
    PinsError,
    PinSet,
    RepoPin,
    SubmodulePin,
    core_pins,
    load_pins,
    merge_pins,
)
from hpx_core.sources.versions import (
    package_status,
    parse_version,
    require_min_version,
    require_package,
    source_version,
)

__all__ = [
    "BoardLike",
    "PackagePin",
    "PinSet",
    "PinsError",
    "RepoPin",
    "SourceCache",
    "SubmodulePin",
    "Verdict",
    "cache_info",
    "cache_root",
    "check_may_run",
    "clean_cache",
    "core_pins",
    "load_pins",
    "materialize",
    "materialize_board",
    "materialize_pin",
    "materialize_pins",
    "may_run",
    "merge_pins",
    "package_status",
    "parse_version",
    "pin_states",
    "require_min_version",
    "require_package",
    "source_version",
]
