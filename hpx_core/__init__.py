"""hpx: a profiler for ML inference on Cortex-M microcontrollers.

Engine plugins import what they need from here: :data:`hookimpl`, the contract records
(:mod:`hpx_core.contract`), the error types and the config helpers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hpx_core.project import PROJECT_NAME

if TYPE_CHECKING:
    import pluggy

    from hpx_core.config.checks import (
        FieldValueError,
        at_least,
        auto_or_names,
        names_to_tuple,
    )
    from hpx_core.config.schema import MemoryLocation
    from hpx_core.contract import (
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
        ModelNote,
        ModelRequest,
        NotesRequest,
        PlannedBuffer,
        ReferenceOutput,
        Region,
        ResultExtras,
        ResultsRequest,
        SourceRepo,
        SourceSet,
        SourcesRequest,
        SymbolFinding,
        SymbolsRequest,
        model_view,
    )
    from hpx_core.errors import ConfigError, HpxError

    hookimpl: pluggy.HookimplMarker
    """Decorator that marks an engine plugin's hook implementations."""
    __version__: str

_HOMES = {"FieldValueError": "config.checks", "at_least": "config.checks",
          "auto_or_names": "config.checks", "names_to_tuple": "config.checks",
          "ConfigError": "errors", "HpxError": "errors",
          "MemoryLocation": "config.schema"}


def __getattr__(name: str) -> Any:
    """The package face is imported on first use, so that ``hpx --help`` starts fast."""
    if name == "hookimpl":
        import pluggy

        value: Any = pluggy.HookimplMarker(PROJECT_NAME)
    elif name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("hpx-core")
        except PackageNotFoundError:  # a source tree that is not installed
            value = "0+unknown"
    elif name in __all__:
        home = importlib.import_module(f"hpx_core.{_HOMES.get(name, 'contract')}")
        value = getattr(home, name)
    else:
        raise AttributeError(f"module 'hpx_core' has no attribute {name!r}")
    globals()[name] = value
    return value


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
    "ModelNote",
    "ModelRequest",
    "NotesRequest",
    "PlannedBuffer",
    "ReferenceOutput",
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
    "model_view",
    "names_to_tuple",
]
