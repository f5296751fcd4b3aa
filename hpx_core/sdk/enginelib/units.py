"""An engine library kept as compiled units, extended by the units each program needs.

Most of a kernel library is kernels a given model never calls. Here the library's project is
configured whole (:mod:`.unit_tree`) and only the objects a program needs are compiled; they are
kept in one cache folder per library key (``engines/<name>-<key[:20]>``), with a manifest of
what is there. A later program that needs more compiles only its new units, under the folder's
one lock; two programs needing different units wait for each other and compile nothing twice.

A program links *link archives*: GNU thin archives of the needed objects in the whole library's
own member order. A linker pulls members of an archive by walking its symbol table in member
order, so an archive that holds the same objects in the same order, less members the link
never pulls, links the very same members in the very same order as the whole library would:
the firmware, and so every instruction count, is the whole library's.

Every file is written aside and renamed into place; objects and link archives are never changed
once there, and the manifest is replaced whole, so a run reading the folder while another
extends it sees the state before or the state after, both whole. A run whose units are all
there takes no lock. A damaged object or link archive is forgotten and made again, which costs
that unit's compile alone (:mod:`.unit_repair`); a damaged manifest or staged file makes the
folder again (:mod:`.cached`). Paths in the manifest are relative to the source roots and to
the folder, so a moved cache is used as it is.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.contract import LibraryUse
from hpx_core.firmware.toolchain import Toolchain
from hpx_core.sdk.enginelib.cached import CONTENTS, entry_folder, file_state, read_manifest
from hpx_core.sdk.enginelib.precompiled import Precompiled
from hpx_core.sdk.enginelib.spec import Stage
from hpx_core.sdk.enginelib.unit_tree import TargetUnits

Project = Callable[[Path, Path], str]
"""``project(scratch, folder)``: the CMakeLists text of the whole library, compiled in the
``scratch`` folder for the units' folder ``folder``."""
Select = Callable[[tuple[TargetUnits, ...]], Iterable[str]]
"""The sources of the units a program needs, chosen from the library's listing."""
Alongside = Callable[[frozenset[str]], Sequence[str]]
"""``alongside(chosen)``: given the units chosen (portable sources), other targets of the kept
tree its owner builds next, to build in the same Ninja run, so their compiles fill the cores
the units leave idle; it may rewrite the tree's project first (Ninja configures it again)."""
Collect = Callable[[Path, Path], Mapping[str, Any]]
"""``collect(build, folder)``, once, after the first units were built: what the library's users
need from its build tree ``build``, kept in the manifest (the include folders and definitions
a target exports, paths portable); files the build generated that they include may be copied
into ``folder`` (aside, then renamed)."""


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(str(v) for v in value)


def _str_map(value: Mapping[str, str]) -> dict[str, str]:
    return dict(value)


@attrs.frozen
class UnitRecipe:
    """How to make a library's units: its name and key (over everything that changes the
    objects), its archive targets in link order, its project, what is staged in its folder
    once (headers its users include), and how it is configured."""

    name: str
    key: str
    targets: tuple[str, ...] = attrs.field(converter=_strs)
    project: Project
    stage: Stage | None = None
    defines: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    cpu_flags: tuple[str, ...] = attrs.field(default=(), converter=_strs)
    toolchain: Toolchain | None = None
    roots: Mapping[str, str] = attrs.field(factory=dict, converter=_str_map)
    collect: Collect | None = None
    tree: Path | None = None  # a build tree kept between builds, or a scratch one (None)
    tree_lock: Path | None = None  # the lock of a kept tree others build in too
    alongside: Alongside | None = None  # only with a kept ``tree``
    precompiled: Precompiled | None = None  # only with a scratch tree: made for one build

    def scratch(self, folder: Path) -> Path:
        """Where the project is configured and built: the kept tree, or a scratch folder of
        fixed name beside the units' folder (a compiler cache sees the same commands again)."""
        return self.tree or folder.with_name(f".{folder.name}.tmp-build")


def _paths(value: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(Path(v) for v in value)


@attrs.frozen
class UnitLibrary:
    """The units a program links: its link archives (one per target, in link order)."""

    name: str
    key: str  # the library's key and the units chosen
    folder: Path
    archives: tuple[Path, ...] = attrs.field(converter=_paths)
    linked: int  # units in the link archives
    total: int  # units of the whole library
    built: bool  # this call compiled units
    seconds: float
    compiled: int = 0
    compiler_cache: Mapping[str, Any] | None = None
    collected: Mapping[str, Any] = attrs.field(factory=dict)  # the recipe's ``collect``
    chosen: tuple[str, ...] = ()  # the units' sources, portable (``@root@/...``)
    alongside: int = 0  # files compiled for the recipe's ``alongside`` targets

    def use(self) -> LibraryUse:
        """How the firmware's bundle names these units and what getting them took."""
        return LibraryUse(self.name, self.key, self.built, self.seconds, self.compiled,
                          self.compiler_cache, f"{self.linked} of {self.total} units")


def units_folder(recipe: UnitRecipe, root: Path | None = None) -> Path:
    return entry_folder(recipe.name, recipe.key, root)


def selection_digest(sources: Iterable[str]) -> str:
    return hashlib.sha256("\n".join(sorted(sources)).encode()).hexdigest()


def ready(folder: Path, recipe: UnitRecipe, label: str) -> Mapping[str, Any] | None:
    """The manifest, read without the lock and without writing, when ``label``'s units and
    link archives are all there as recorded; None sends the caller to the locked path."""
    manifest = read_manifest(folder, recipe.key)
    if manifest is None or label not in manifest.get("selections", {}):
        return None
    digest = selection_digest(manifest["selections"][label])
    links = manifest.get("links", {}).get(digest)
    if links is None:
        return None
    contents = manifest.get(CONTENTS, {})
    wanted = [manifest.get("objects", {}).get(s) for s in manifest["selections"][label]]
    for rel in [*wanted, *links.values()]:
        record = contents.get(rel) if rel else None
        if record is None or file_state(folder / rel, record) is not record:
            return None
    return manifest


def unit_library(recipe: UnitRecipe, folder: Path, manifest: Mapping[str, Any], label: str,
             started: float, facts: Mapping[str, Any] | None) -> UnitLibrary:
    chosen = manifest["selections"][label]
    digest = selection_digest(chosen)
    links = manifest["links"][digest]
    compiled = int(facts.get("compiled", 0)) if facts else 0
    return UnitLibrary(
        name=recipe.name, key=hashlib.sha256(f"{recipe.key}:{digest}".encode()).hexdigest(),
        folder=folder,
        archives=[folder / links[t] for t in recipe.targets if t in links],
        linked=len(chosen), total=sum(len(t["units"]) for t in manifest["listing"]),
        built=compiled > 0, seconds=time.monotonic() - started, compiled=compiled,
        compiler_cache=facts.get("compiler_cache") if facts and compiled else None,
        collected=manifest.get("collected", {}), chosen=tuple(chosen),
        alongside=int(facts.get("alongside", 0)) if facts else 0)
