"""Extending a units folder with the units a program needs (the caller holds its lock).

The folder is made first (staged headers and a manifest, written aside and renamed); the
project is configured in a scratch tree of fixed name beside it, so a compiler cache recognizes
every command again; the missing objects are built there, copied into ``objects/`` and the link
archives written into ``links/``, each file aside then renamed; the manifest is replaced last.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hpx_core.enginelib.cached import (
    CONTENTS,
    discard,
    file_record,
    folder_contents,
    intact_manifest,
    write_manifest,
)
from hpx_core.enginelib.checking import may_build
from hpx_core.enginelib.identity import portable, resolved
from hpx_core.enginelib.unit_tree import (
    TargetUnits,
    Unit,
    archiver,
    build_objects,
    configure,
    listing_cmake,
    read_listing,
)
from hpx_core.enginelib.units import (
    Select,
    UnitLibrary,
    UnitRecipe,
    ready,
    selection_digest,
    unit_library,
    units_folder,
)
from hpx_core.errors import BuildError
from hpx_core.locks import hold
from hpx_core.log import get_logger

log = get_logger()
LOG = "build.log"


def ensure_units(recipe: UnitRecipe, select: Select, label: str, *, root: Path | None = None,
                 jobs: int = 2) -> UnitLibrary:
    """The units ``select`` chooses (remembered by ``label``), compiled now where missing, and
    their link archives; without the lock when they are all there."""
    started = time.monotonic()
    folder = units_folder(recipe, root)
    found = ready(folder, recipe, label)
    if found is not None:
        return unit_library(recipe, folder, found, label, started, None)
    may_build(f"the units of {folder.name} for {label}")
    with hold(folder.with_name(f".{folder.name}.lock"), f"engine library {folder.name}"):
        manifest, facts = extend(folder, recipe, select, label, jobs)
    log.info("engine units", name=recipe.name, label=label, compiled=facts.get("compiled", 0))
    return unit_library(recipe, folder, manifest, label, started, facts)


def extend(folder: Path, recipe: UnitRecipe, select: Select, label: str, jobs: int
           ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The manifest once ``label``'s units and link archives are in ``folder``, and the facts
    of what was compiled for them (empty when nothing was)."""
    scratch = folder.with_name(f".{folder.name}.tmp-build")
    for stale in folder.parent.glob(f".{folder.name}.tmp-*"):  # a killed run's; we hold the lock
        shutil.rmtree(stale, ignore_errors=True)
    found = intact_manifest(folder, recipe.key)
    if found is None:
        discard(folder)
    manifest = dict(found) if found is not None else _create(folder, recipe)
    try:
        facts = _extend(folder, scratch, recipe, manifest, select, label, jobs)
    except BuildError as error:
        kept = folder.with_name(f"{folder.name}.failed.log")
        if (scratch / LOG).is_file():
            shutil.copyfile(scratch / LOG, kept)
        raise BuildError(error.message, f"full log: {kept}") from error
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return manifest, facts


def _create(folder: Path, recipe: UnitRecipe) -> dict[str, Any]:
    temp = folder.with_name(f".{folder.name}.tmp-new")
    temp.mkdir(parents=True)
    if recipe.stage is not None:
        recipe.stage(temp)
    manifest = {"key": recipe.key, "name": recipe.name, CONTENTS: folder_contents(temp)}
    write_manifest(temp, manifest)
    temp.rename(folder)
    return manifest


def _extend(folder: Path, scratch: Path, recipe: UnitRecipe, manifest: dict[str, Any],
            select: Select, label: str, jobs: int) -> dict[str, Any]:
    tree = _Tree(folder, scratch, recipe)
    if "listing" not in manifest:
        manifest["listing"] = _portable_listing(tree.listing(), recipe.roots)
        manifest["archiver"] = tree.archiver()
        manifest["collected"] = tree.collected()
    listing = _listing_of(manifest, recipe.roots)
    selections = manifest.setdefault("selections", {})
    if label not in selections:
        selections[label] = _chosen(listing, select, recipe.roots)
    chosen = set(selections[label])
    objects: dict[str, str] = manifest.setdefault("objects", {})
    missing = [u for t in listing for u in t.units
               if portable(u.source, recipe.roots) in chosen
               and portable(u.source, recipe.roots) not in objects]
    facts: dict[str, Any] = {}
    if missing:
        facts = tree.build([u.object for u in missing], jobs)
        for unit in missing:
            source = portable(unit.source, recipe.roots)
            objects[source] = _keep(scratch / "build" / unit.object, folder, source)
    links = manifest.setdefault("links", {})
    digest = selection_digest(chosen)
    if digest not in links:
        links[digest] = _link_archives(folder, manifest, listing, chosen, digest, recipe.roots)
    new = [rel for rel in (*objects.values(), *links[digest].values())
           if rel not in manifest[CONTENTS]]
    manifest[CONTENTS] = {**manifest[CONTENTS], **{r: file_record(folder / r) for r in new}}
    write_manifest(folder, manifest)
    return facts


def _chosen(listing: tuple[TargetUnits, ...], select: Select, roots: Mapping[str, str]
            ) -> list[str]:
    known = {u.source for t in listing for u in t.units}
    picked = set(select(listing))
    stray = sorted(picked - known)
    if stray:
        raise BuildError(f"{stray[0]} is not a unit of this library",
                         "the engine chose a source its library does not compile")
    return sorted(portable(s, roots) for s in picked)


class _Tree:
    """The scratch tree, configured the first time it is needed."""

    def __init__(self, folder: Path, scratch: Path, recipe: UnitRecipe) -> None:
        self.folder, self.scratch, self.recipe = folder, scratch, recipe
        self.configured = False

    def _configure(self) -> None:
        if self.configured:
            return
        project = self.scratch / "project"
        project.mkdir(parents=True, exist_ok=True)
        text = self.recipe.project(self.scratch, self.folder) + listing_cmake(self.recipe.targets)
        (project / "CMakeLists.txt").write_text(text, encoding="utf-8")
        configure(self.recipe.name, project, self.scratch / "build", self.scratch / LOG,
                  defines=self.recipe.defines, toolchain=self.recipe.toolchain,
                  cpu_flags=self.recipe.cpu_flags)
        self.configured = True

    def listing(self) -> tuple[TargetUnits, ...]:
        self._configure()
        return read_listing(self.scratch / "build", self.recipe.targets)

    def archiver(self) -> str:
        self._configure()
        return archiver(self.scratch / "build")

    def collected(self) -> Mapping[str, Any]:
        self._configure()
        collect = self.recipe.collect
        return dict(collect(self.scratch / "build")) if collect is not None else {}

    def build(self, objects: Sequence[str], jobs: int) -> dict[str, Any]:
        self._configure()
        done = build_objects(self.recipe.name, self.scratch / "project", self.scratch / "build",
                             self.scratch / LOG, objects, jobs=jobs,
                             toolchain=self.recipe.toolchain, cpu_flags=self.recipe.cpu_flags)
        return done.facts()


def _portable_listing(listing: Sequence[TargetUnits], roots: Mapping[str, str]
                      ) -> list[dict[str, Any]]:
    return [{"target": t.target,
             "units": [[portable(u.source, roots), u.object] for u in t.units]}
            for t in listing]


def _listing_of(manifest: Mapping[str, Any], roots: Mapping[str, str]
                ) -> tuple[TargetUnits, ...]:
    return tuple(TargetUnits(t["target"], [Unit(resolved(s, roots), o) for s, o in t["units"]])
                 for t in manifest["listing"])


def _keep(built: Path, folder: Path, source: str) -> str:
    """Copy one built object into ``objects/`` (aside, then renamed); its path in the folder."""
    if not built.is_file():
        raise BuildError(f"the build made no object for {Path(source).name}",
                         "the library's compile commands and its objects disagree")
    name = f"{Path(source).name}-{hashlib.sha256(source.encode()).hexdigest()[:12]}.o"
    rel = f"objects/{name}"
    (folder / "objects").mkdir(exist_ok=True)
    temp = folder / "objects" / f".{name}.tmp"
    shutil.copyfile(built, temp)
    temp.replace(folder / rel)
    return rel


def _link_archives(folder: Path, manifest: Mapping[str, Any], listing: Sequence[TargetUnits],
                   chosen: set[str], digest: str, roots: Mapping[str, str]) -> dict[str, str]:
    """One thin archive per target holding the chosen objects in the target's own order."""
    links = folder / "links"
    links.mkdir(exist_ok=True)
    made: dict[str, str] = {}
    for target in listing:
        members = [manifest["objects"][s] for s in
                   (portable(u.source, roots) for u in target.units) if s in chosen]
        if members:
            name = f"{target.target}-{digest[:16]}.a"
            _thin_archive(manifest["archiver"], links, name, [f"../{m}" for m in members])
            made[target.target] = f"links/{name}"
    return made


def _thin_archive(tool: str, folder: Path, name: str, members: Sequence[str]) -> None:
    temp = folder / f".{name}.tmp"
    temp.unlink(missing_ok=True)
    thin = ["rcsD", "--thin"] if "llvm-ar" in Path(tool).name else ["rcsTD"]
    done = subprocess.run([tool, *thin, temp.name, *members], cwd=folder, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise BuildError(f"{Path(tool).name} could not write the link archive {name}: "
                         f"{done.stderr.strip()}", "check the toolchain's binutils")
    temp.replace(folder / name)
