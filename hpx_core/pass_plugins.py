"""The objects the ``hpx.passes`` entry points of installed distributions name, loaded once.

A pass distribution hands hpx one object (or a class whose instances are one). Each layer of
the core asks that object only for the face it knows, by a runtime-checked protocol: the run
stages for an uncounted pass (:class:`hpx_core.pipeline.uncounted.UncountedPass`), the config
for its own keys and flags (:class:`hpx_core.config.pass_keys.ConfiguredPass`), the bundle
readers for its files' schemas and views (:class:`hpx_core.results.extensions.BundleExtension`).
So nothing in the core names a pass, and a pass that has no view simply shows none.
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint
from typing import Any

from hpx_core.errors import PluginError
from hpx_core.plugins import DISABLE_ENV, PASS_GROUP


def pass_plugins(entries: tuple[EntryPoint, ...]) -> tuple[Any, ...]:
    """The pass object of each entry point (``Registry.passes``; each loaded once per
    process)."""
    return tuple(_loaded(entry) for entry in entries)


@functools.cache
def _loaded(entry: EntryPoint) -> Any:
    """The object ``entry`` names (instantiated when it names a class); a PluginError naming
    the distribution when it does not load."""
    where = f"{entry.name} = {entry.value}" + (f" of {entry.dist.name}" if entry.dist else "")
    try:
        found: Any = entry.load()
        return found() if isinstance(found, type) else found
    except Exception as error:
        raise PluginError(f"the {PASS_GROUP} entry point {where} does not load "
                          f"({type(error).__name__}: {error})",
                          f"fix or uninstall it, or disable it with {DISABLE_ENV}={entry.name}"
                          ) from None

