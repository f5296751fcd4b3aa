"""Where hpx keeps what it makes once and reuses: the cache folder, chosen in one place.

Sources, engine libraries, kept documents and compiled templates all live under it; naming it
at the bottom of the package lets each of them find it without importing the others.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "HPX_CACHE_DIR"


def cache_root() -> Path:
    """``$HPX_CACHE_DIR``, or ``~/.cache/helia-profiler``."""
    value = os.environ.get(ENV)
    return Path(value).expanduser() if value else Path.home() / ".cache" / "helia-profiler"
