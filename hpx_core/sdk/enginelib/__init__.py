"""Engine libraries built once per configuration and shared by every model's firmware.

An engine library depends on the engine, backend, CPU flags, toolchain and source pins, never on
the model, the board's name or where the sources and the cache are. hpx builds it once into a
content-addressed folder of the cache and links each model's small app against it. Engines run
their tools through here too: build tools as logged subprocesses (:func:`run_logged`), Python
tools in-process with their output captured to the run's log (:func:`tool_output_to`). CMake
text an engine writes quotes every path and value with :func:`cmake_quote` (compiler flags
joined into one string with :func:`shell_join` first).

A kernel library may instead be kept as units (:func:`ensure_units`): configured whole, compiled
an object at a time as programs need them, linked through archives in the whole library's order.
"""

from hpx_core.firmware.cmake_text import cmake_quote, shell_join
from hpx_core.sdk.enginelib.build import (
    LIB_TOKEN,
    EngineLibrary,
    archive_cmake,
    ensure_library,
    include_dirs_in,
    library_cmake,
    spec_units,
)
from hpx_core.sdk.enginelib.cached import CachedFolder, cached_folder
from hpx_core.sdk.enginelib.cmake import LibraryBuild, cmake_library, run_logged, toolchain_args
from hpx_core.sdk.enginelib.identity import (
    debug_prefix_flags,
    identity_key,
    source_identity,
    source_roots,
)
from hpx_core.sdk.enginelib.precompiled import Precompiled
from hpx_core.sdk.enginelib.spec import (
    LibrarySpec,
    SourceGroup,
    Stage,
    builds_with_gcc,
    toolchain_identity,
)
from hpx_core.sdk.enginelib.tool_output import tool_output_to
from hpx_core.sdk.enginelib.unit_build import ensure_units
from hpx_core.sdk.enginelib.unit_tree import TargetUnits, Unit
from hpx_core.sdk.enginelib.units import UnitLibrary, UnitRecipe

__all__ = [
    "LIB_TOKEN",
    "CachedFolder",
    "EngineLibrary",
    "LibraryBuild",
    "LibrarySpec",
    "Precompiled",
    "SourceGroup",
    "Stage",
    "TargetUnits",
    "Unit",
    "UnitLibrary",
    "UnitRecipe",
    "archive_cmake",
    "builds_with_gcc",
    "cached_folder",
    "cmake_library",
    "cmake_quote",
    "debug_prefix_flags",
    "ensure_library",
    "ensure_units",
    "identity_key",
    "include_dirs_in",
    "library_cmake",
    "run_logged",
    "shell_join",
    "source_identity",
    "source_roots",
    "spec_units",
    "tool_output_to",
    "toolchain_args",
    "toolchain_identity",
]
