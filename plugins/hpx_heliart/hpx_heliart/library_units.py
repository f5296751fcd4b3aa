"""A heliaRT backend kept as units: the interpreter and the model's kernels, compiled by
heliaRT's own CMake one object at a time.

The project is the one the whole backend is built from (:func:`hpx_heliart.library.
project_text`); its two archive targets (``helia_rt_<backend>`` and, for the optimized
backends, the kernel library's ``cmsis-nn``) are kept as units (:mod:`hpx_core.sdk.enginelib.
units`) and a model links thin archives of the units it needs, in each target's own member
order and in the same link group as the whole archives: the firmware is the whole library's.
Which units a model needs is read from the sources (:mod:`hpx_tflm_family.kernel_units`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from hpx_tflm_family.kernel_units import needed_sources, schema_header

from hpx_core.sdk import SourceSet
from hpx_core.sdk.enginelib import (
    TargetUnits,
    UnitRecipe,
    ensure_units,
    identity_key,
    source_roots,
)
from hpx_core.sdk.enginelib.identity import resolved
from hpx_core.sdk.firmware import Toolchain
from hpx_heliart.library import (
    KERNEL_REPO,
    HeliaRtLibrary,
    interface,
    library_key,
    project_text,
)
from hpx_heliart.library_cmake import backend_target

UNITS = 1  # bump when the way heliaRT's units are kept changes


def units_recipe(sources: SourceSet, backend: str, cpu_flags: Sequence[str],
                 toolchain: Toolchain | None = None) -> UnitRecipe:
    """heliaRT's ``backend`` for ``cpu_flags`` and ``toolchain``, as units."""
    roots = source_roots(sources)
    key = identity_key({"units": UNITS,
                        "library": library_key(sources, backend, cpu_flags, toolchain)}, roots)

    def project(scratch: Path, folder: Path) -> str:
        return project_text(sources, backend, cpu_flags, scratch, folder, toolchain)

    def collect(build: Path, _folder: Path) -> Mapping[str, Any]:
        return interface(build, sources)

    targets = (backend_target(backend), *(("cmsis-nn",) if backend in KERNEL_REPO else ()))
    return UnitRecipe(name=f"helia_rt_{backend}", key=key, targets=targets, project=project,
                      defines=("-DCMAKE_BUILD_TYPE=",), cpu_flags=cpu_flags,
                      toolchain=toolchain, roots=roots, collect=collect,
                      precompiled=schema_header(sources.path_of("helia-rt")))


def ensure_heliart_units(sources: SourceSet, backend: str, cpu_flags: Sequence[str],
                         ops: Collection[str], *, jobs: int = 2,
                         toolchain: Toolchain | None = None) -> HeliaRtLibrary:
    """The units ``ops`` need, compiled where missing, as a library the firmware links."""
    root = sources.path_of("helia-rt")

    def select(listing: tuple[TargetUnits, ...]) -> set[str]:
        return needed_sources((u.source for t in listing for u in t.units), root, ops, ())

    label = "operators:" + ",".join(sorted(set(ops)))
    units = ensure_units(units_recipe(sources, backend, cpu_flags, toolchain), select, label,
                         jobs=jobs)
    roots = source_roots(sources)
    return HeliaRtLibrary(
        backend=backend, key=units.key, folder=units.folder, archives=units.archives,
        include_dirs=[Path(resolved(p, roots)) for p in units.collected["include_dirs"]],
        defines=units.collected["defines"], built=units.built, seconds=units.seconds,
        build={"compiled": units.compiled, "compiler_cache": units.compiler_cache,
               "linked": f"{units.linked} of {units.total} units"})
