"""hpx: a profiler for ML inference on Cortex-M microcontrollers.

Engine plugins import what they need from :mod:`hpx_core.sdk` (hookimpl, the contract records,
the error types, the config helpers and the rest of the engine SDK), never from here nor from
the core's other packages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpx_core.project import PROJECT_NAME

if TYPE_CHECKING:
    __version__: str


def __getattr__(name: str) -> str:
    """The version is read from the installed metadata on first use, so that ``hpx --help``
    starts fast."""
    if name != "__version__":
        raise AttributeError(f"module 'hpx_core' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("hpx-core")
    except PackageNotFoundError:  # a source tree that is not installed
        value = "0+unknown"
    globals()[name] = value
    return value


__all__ = ["PROJECT_NAME", "__version__"]
