"""What of the ``tflm`` library a firmware links: the model's kernels, or every kernel.

By default the library is kept as units (:func:`hpx_core.sdk.enginelib.ensure_units`): the
interpreter and, per model, the kernels of the operators it registers with what they include
and call (:mod:`hpx_tflm_family.kernel_units`), compiled once each and linked through an archive
in the whole library's member order, so the firmware is the one the whole library gives.
``kernels: all`` builds the whole library at once, as one archive.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path

import attrs
from hpx_tflm_family.kernel_units import needed_sources, schema_header

from hpx_core.sdk import LibraryUse, SourceSet
from hpx_core.sdk.enginelib import (
    TargetUnits,
    archive_cmake,
    ensure_library,
    ensure_units,
    include_dirs_in,
    library_cmake,
    spec_units,
)
from hpx_core.sdk.firmware import Toolchain
from hpx_tflm.library import flatbuffers_stage, tflm_spec


def _paths(value: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(Path(v) for v in value)


def _uses(value: Iterable[LibraryUse]) -> tuple[LibraryUse, ...]:
    return tuple(value)


@attrs.frozen
class LinkedLibrary:
    """What the firmware links of the engine: the CMake that links it, the folders and defines
    the glue compiles TFLM's headers with, its key, and what getting it took."""

    key: str
    folder: Path
    include_dirs: tuple[Path, ...] = attrs.field(converter=_paths)
    defines: Mapping[str, str]
    cmake: str
    uses: tuple[LibraryUse, ...] = attrs.field(converter=_uses)


def linked_library(sources: SourceSet, backend: str, cpu_flags: Collection[str],
                   ops: Collection[str], *, kernels: str = "model", jobs: int = 2,
                   toolchain: Toolchain | None = None) -> LinkedLibrary:
    """The library for ``backend`` on a CPU with ``cpu_flags`` built by ``toolchain``: the
    units ``ops`` need, or (``kernels='all'``) the whole library."""
    spec = tflm_spec(sources, backend, tuple(cpu_flags), toolchain=toolchain)
    stage = flatbuffers_stage(sources)
    if kernels == "all":
        whole = ensure_library(spec, stage, jobs=jobs, toolchain=toolchain)
        return LinkedLibrary(whole.key, whole.folder, whole.include_dirs, spec.defines,
                             library_cmake(whole), [whole.use()])
    schema = schema_header(sources.path_of("tflite-micro"))
    units = ensure_units(spec_units(spec, stage, toolchain=toolchain, precompiled=schema),
                         _selection(sources, ops), operators_label(ops), jobs=jobs)
    return LinkedLibrary(units.key, units.folder, include_dirs_in(spec, units.folder),
                         spec.defines, archive_cmake(spec.name, units.archives[0]),
                         [units.use()])


def operators_label(ops: Collection[str]) -> str:
    """How a units folder remembers the units of an operator set."""
    return "operators:" + ",".join(sorted(set(ops)))


def _selection(sources: SourceSet, ops: Collection[str]
               ) -> Callable[[tuple[TargetUnits, ...]], set[str]]:
    root = sources.path_of("tflite-micro")

    def select(listing: tuple[TargetUnits, ...]) -> set[str]:
        return needed_sources((u.source for t in listing for u in t.units), root, ops, ())

    return select
