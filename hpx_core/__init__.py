"""hpx: a profiler for ML inference on Cortex-M microcontrollers.

Engine plugins import what they need from here: :data:`hookimpl`, the contract records, the
error types and the config helpers.
"""

from importlib.metadata import PackageNotFoundError, version

import pluggy

PROJECT_NAME = "hpx"
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
"""Decorator that marks an engine plugin's hook implementations."""

try:
    __version__ = version("hpx-core")
except PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

from hpx_core.config.checks import (  # noqa: E402
    FieldValueError,
    at_least,
    auto_or_names,
    names_to_tuple,
)
from hpx_core.engine import (  # noqa: E402
    ConfigContext,
    EngineDescriptor,
    FirmwareContribution,
    LayerRecord,
    SourceRepo,
    SourceSet,
    SymbolFinding,
    context_engine,
    context_engine_config,
)
from hpx_core.errors import ConfigError, HpxError  # noqa: E402

__all__ = [
    "PROJECT_NAME",
    "ConfigContext",
    "ConfigError",
    "EngineDescriptor",
    "FieldValueError",
    "FirmwareContribution",
    "HpxError",
    "LayerRecord",
    "SourceRepo",
    "SourceSet",
    "SymbolFinding",
    "__version__",
    "at_least",
    "auto_or_names",
    "context_engine",
    "context_engine_config",
    "hookimpl",
    "names_to_tuple",
]
