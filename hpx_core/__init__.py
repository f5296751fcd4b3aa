"""hpx: a profiler for ML inference on Cortex-M microcontrollers.

Engine plugins import what they need from here: :data:`hookimpl`, the contract records
(:mod:`hpx_core.contract`), the error types and the config helpers.
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
from hpx_core.config.schema import MemoryLocation  # noqa: E402
from hpx_core.contract import (  # noqa: E402
    BufferNeed,
    BufferPlacement,
    CodeSize,
    ConfigRequest,
    EngineDescriptor,
    EngineSelection,
    ErrorRequest,
    Explanation,
    FirmwareContribution,
    FirmwareRequest,
    LibraryUse,
    ManifestRequest,
    MatchManifest,
    MemoryLayout,
    MemoryNeeds,
    MemoryRequest,
    ModelRequest,
    PlannedBuffer,
    Region,
    ResultExtras,
    ResultsRequest,
    SourceRepo,
    SourceSet,
    SourcesRequest,
    SymbolFinding,
    SymbolsRequest,
)
from hpx_core.errors import ConfigError, HpxError  # noqa: E402

__all__ = [
    "PROJECT_NAME",
    "BufferNeed",
    "BufferPlacement",
    "CodeSize",
    "ConfigError",
    "ConfigRequest",
    "EngineDescriptor",
    "EngineSelection",
    "ErrorRequest",
    "Explanation",
    "FieldValueError",
    "FirmwareContribution",
    "FirmwareRequest",
    "HpxError",
    "LibraryUse",
    "ManifestRequest",
    "MatchManifest",
    "MemoryLayout",
    "MemoryLocation",
    "MemoryNeeds",
    "MemoryRequest",
    "ModelRequest",
    "PlannedBuffer",
    "Region",
    "ResultExtras",
    "ResultsRequest",
    "SourceRepo",
    "SourceSet",
    "SourcesRequest",
    "SymbolFinding",
    "SymbolsRequest",
    "__version__",
    "at_least",
    "auto_or_names",
    "hookimpl",
    "names_to_tuple",
]
