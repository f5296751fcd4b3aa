"""Where hpx keeps what it makes once and reuses: the cache folder, chosen in one place.

Sources, engine libraries, kept documents and compiled templates all live under it; naming it
at the bottom of the package lets each of them find it without importing the others.

The default folder is ``hpx`` in the user's cache folder (``$XDG_CACHE_HOME``, else
``~/.cache``). Releases before it kept the cache in ``~/.cache/helia-profiler``: such a folder
is moved to the new name the first time it is looked for (cache entries name no absolute path,
so a moved cache is used as it is), and read where it is when it cannot be moved, so an upgrade
never rebuilds what was built.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV = "HPX_CACHE_DIR"
NAME = "hpx"
LEGACY_NAME = "helia-profiler"  # the default folder's name in earlier releases
DEBUG_ROOT = "/hpx-cache"
"""What compiled code records instead of the cache's folder (debug info; ``__FILE__`` in
libraries): a debugger finds the sources with ``set substitute-path /hpx-cache <the cache
folder>``, and what is built names no cache folder of the machine it was built on."""


def cache_root() -> Path:
    """``$HPX_CACHE_DIR``, or ``hpx`` in the user's cache folder (a legacy one moved there)."""
    value = os.environ.get(ENV)
    if value:
        return Path(value).expanduser()
    root = _user_cache() / NAME
    legacy = Path.home() / ".cache" / LEGACY_NAME
    if root.exists() or not legacy.is_dir():
        return root
    try:
        root.parent.mkdir(parents=True, exist_ok=True)
        legacy.rename(root)  # one rename: a moved cache is whole or still where it was
    except OSError:
        return legacy  # another file system, or a folder hpx may not write: read it in place
    return root


def _user_cache() -> Path:
    """``$XDG_CACHE_HOME`` when set to an absolute path (as the XDG spec asks), else ~/.cache."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
