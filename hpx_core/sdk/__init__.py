"""The engine SDK: everything an engine plugin may import from hpx, and nothing else.

A plugin imports ``hpx_core.sdk`` and its modules only, never the core's own packages:
import-linter keeps it so for the plugins, the example engines and the test engines
(``[tool.importlinter]`` in pyproject.toml, ``tests/test_layers.py``). The core may then
rearrange its packages freely; what it promises engines is this face.

This module is the contract itself: :data:`hookimpl`, the records that cross it, the errors
a hook raises, the helpers an engine's config section validates with and a logger. Light on
purpose, because every command loads every plugin's hooks module. The rest is grouped by what
an engine does with it:

- :mod:`hpx_core.sdk.models`: model records and the bounded readers' helpers
- :mod:`hpx_core.sdk.sources`: pins, materialization, version floors
- :mod:`hpx_core.sdk.firmware`: boards, toolchains, the memory plan's uses, an ELF's symbols
- :mod:`hpx_core.sdk.enginelib`: engine libraries built once into the cache, engine tools
- :mod:`hpx_core.sdk.cache`: the cache folder and documents kept there
- :mod:`hpx_core.sdk.results`: the device's capture and match manifests
- :mod:`hpx_core.sdk.calibration`: the calibration workload (engines that test the pipeline)
- :mod:`hpx_core.sdk.passes`: what an uncounted pass is asked and answers (``hpx.passes``)
- :mod:`hpx_core.sdk.bundles`: the verified view of a result bundle (a pass's own command)
"""

from __future__ import annotations

from hpx_core import engine_protocol as engine_protocol
from hpx_core.config.checks import FieldValueError as FieldValueError
from hpx_core.config.checks import at_least as at_least
from hpx_core.config.checks import auto_or_names as auto_or_names
from hpx_core.config.checks import names_to_tuple as names_to_tuple
from hpx_core.config.schema import MemoryLocation as MemoryLocation
from hpx_core.contract import (
    BufferNeed,
    BufferPlacement,
    CheckLayers,
    CodeSize,
    ConfigRequest,
    EngineDescriptor,
    EngineSection,
    EngineSelection,
    ErrorRequest,
    Explanation,
    Facts,
    FirmwareContribution,
    FirmwareRequest,
    HostOutputs,
    HostOutputsRequest,
    Json,
    LayerReference,
    LibraryUse,
    ManifestRequest,
    MatchManifest,
    MemoryFigures,
    MemoryLayout,
    MemoryNeeds,
    MemoryRequest,
    ModelCheckRequest,
    ModelNote,
    ModelRefusal,
    ModelRequest,
    NotesRequest,
    PlannedBuffer,
    Provenance,
    ReferenceLayer,
    ReferenceOutput,
    ReferenceTensor,
    Region,
    ResultExtras,
    ResultsRequest,
    SourceRepo,
    SourceSet,
    SourcesRequest,
    SymbolFinding,
    SymbolsRequest,
    ToolchainName,
    model_view,
)
from hpx_core.errors import (
    BuildError,
    ConfigError,
    HpxError,
    ModelError,
    ResultsError,
    RunError,
    SourceError,
    ToolError,
)
from hpx_core.log import get_logger as get_logger
from hpx_core.plugin_kit import config_hook as config_hook
from hpx_core.plugin_kit import engines_hook as engines_hook
from hpx_core.plugin_kit import hookimpl as hookimpl  # marks an engine's hook implementations

__all__ = [
    "BufferNeed",
    "BufferPlacement",
    "BuildError",
    "CheckLayers",
    "CodeSize",
    "ConfigError",
    "ConfigRequest",
    "EngineDescriptor",
    "EngineSection",
    "EngineSelection",
    "ErrorRequest",
    "Explanation",
    "Facts",
    "FieldValueError",
    "FirmwareContribution",
    "FirmwareRequest",
    "HostOutputs",
    "HostOutputsRequest",
    "HpxError",
    "Json",
    "LayerReference",
    "LibraryUse",
    "ManifestRequest",
    "MatchManifest",
    "MemoryFigures",
    "MemoryLayout",
    "MemoryLocation",
    "MemoryNeeds",
    "MemoryRequest",
    "ModelCheckRequest",
    "ModelError",
    "ModelNote",
    "ModelRefusal",
    "ModelRequest",
    "NotesRequest",
    "PlannedBuffer",
    "Provenance",
    "ReferenceLayer",
    "ReferenceOutput",
    "ReferenceTensor",
    "Region",
    "ResultExtras",
    "ResultsError",
    "ResultsRequest",
    "RunError",
    "SourceError",
    "SourceRepo",
    "SourceSet",
    "SourcesRequest",
    "SymbolFinding",
    "SymbolsRequest",
    "ToolError",
    "ToolchainName",
    "at_least",
    "auto_or_names",
    "config_hook",
    "engine_protocol",
    "engines_hook",
    "get_logger",
    "hookimpl",
    "model_view",
    "names_to_tuple",
]
