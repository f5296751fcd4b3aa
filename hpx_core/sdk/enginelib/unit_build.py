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
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from hpx_core.errors import BuildError
from hpx_core.firmware.checking import may_build
from hpx_core.locks import hold
from hpx_core.log import get_logger
from hpx_core.sdk.enginelib.cached import (
    CONTENTS,
    MANIFEST,
    discard,
    file_record,
    folder_contents,
    write_manifest,
)
from hpx_core.sdk.enginelib.identity import portable, resolved
from hpx_core.sdk.enginelib.precompiled import precompile_cmake
from hpx_core.sdk.enginelib.spec import builds_with_gcc
from hpx_core.sdk.enginelib.unit_repair import repaired_manifest
from hpx_core.sdk.enginelib.unit_tree import (
    LISTS,
    TargetUnits,
    Unit,
    archiver,
    build_objects,
    compile_commands,
    configure,
    configured_in,
    listing_cmake,
    read_listing,
)
from hpx_core.sdk.enginelib.units import (
    Select,
    UnitLibrary,
    UnitRecipe,
    ready,
    selection_digest,
    unit_library,
    units_folder,
)

log = get_logger()
LOG = "units.log"  # the units build's log in its tree (a kept tree has its own build.log)


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
    for stale in folder.parent.glob(f".{folder.name}.tmp-*"):  # a killed run's; we hold the lock
        shutil.rmtree(stale, ignore_errors=True)
    found = repaired_manifest(folder, recipe.key)  # a damaged unit costs its compile alone
    if found is None:
        discard(folder)
    manifest = found if found is not None else _create(folder, recipe)
    tree = recipe.scratch(folder)
    held = hold(recipe.tree_lock, f"the build tree {tree.name}") if recipe.tree_lock else None
    try:
        with held or nullcontext():
            facts = _extend(folder, _Tree(folder, recipe), manifest, select, label, jobs)
    except BuildError as error:
        kept = folder.with_name(f"{folder.name}.failed.log")
        if (tree / LOG).is_file():
            shutil.copyfile(tree / LOG, kept)
        raise BuildError(error.message, f"full log: {kept}") from error
    finally:
        if recipe.tree is None:
            shutil.rmtree(tree, ignore_errors=True)
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


def _extend(folder: Path, tree: _Tree, manifest: dict[str, Any], select: Select, label: str,
            jobs: int) -> dict[str, Any]:
    recipe = tree.recipe
    if "listing" not in manifest:
        manifest["listing"] = _portable_listing(tree.listing(), recipe.roots)
        manifest["archiver"] = tree.archiver()
    listing = _listing_of(manifest, recipe.roots)
    selections = manifest.setdefault("selections", {})
    if label not in selections:
        selections[label] = _chosen(listing, select, recipe.roots)
    chosen = set(selections[label])
    objects: dict[str, str] = manifest.setdefault("objects", {})
    missing = [(u, t.target) for t in listing for u in t.units
               if portable(u.source, recipe.roots) in chosen
               and portable(u.source, recipe.roots) not in objects]
    facts: dict[str, Any] = {}
    if missing:
        also = list(recipe.alongside(frozenset(chosen))) if recipe.alongside else []
        facts = _compile(tree, missing, jobs, also)
        for unit, _ in missing:
            source = portable(unit.source, recipe.roots)
            objects[source] = _keep(tree.build_dir / unit.object, folder, source)
    if "collected" not in manifest:
        manifest["collected"] = tree.collected()
    links = manifest.setdefault("links", {})
    digest = selection_digest(chosen)
    if digest not in links:
        links[digest] = _link_archives(folder, manifest, listing, chosen, digest, recipe.roots)
    manifest[CONTENTS] = {**manifest[CONTENTS], **_new_records(folder, manifest[CONTENTS])}
    write_manifest(folder, manifest)
    return facts


def _compile(tree: _Tree, missing: Sequence[tuple[Unit, str]], jobs: int,
             also: Sequence[str]) -> dict[str, Any]:
    """Compile the ``missing`` units (each with its target) and the targets ``also``, with the
    recipe's precompiled header where it pays; a build that fails with it is run again
    without it."""
    precompiled = tree.precompile({u.source: target for u, target in missing})
    built = [u.object for u, _ in missing]
    try:
        return tree.build(built, jobs, also, precompiled=precompiled)
    except BuildError as error:
        if not precompiled:
            raise
        log.warning("engine units: compiling again without the precompiled header",
                    name=tree.recipe.name, error=error.message)
        tree.without_precompiled()
        return tree.build(built, jobs, also)


def _new_records(folder: Path, recorded: Mapping[str, Any]) -> dict[str, Any]:
    """Records of the files of ``folder`` the manifest does not hold yet (what this build
    added: objects, link archives, collected files)."""
    found = (p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    added = (p.relative_to(folder).as_posix() for p in found)
    return {rel: file_record(folder / rel) for rel in added
            if rel not in recorded and rel != MANIFEST and not Path(rel).name.startswith(".")}


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
    """The build tree, configured the first time it is needed; a kept tree configured in
    another folder (a moved cache: CMake trees cannot move) is made again."""

    def __init__(self, folder: Path, recipe: UnitRecipe) -> None:
        self.folder, self.recipe = folder, recipe
        self.root = recipe.scratch(folder)
        self.build_dir = self.root / "build"
        self.configured = False
        self._plain: str | None = None  # the project before a precompiled header was added

    def _configure(self) -> None:
        if self.configured:
            return
        if not configured_in(self.build_dir):
            shutil.rmtree(self.root, ignore_errors=True)
        project = self.root / "project"
        project.mkdir(parents=True, exist_ok=True)
        if not self._listed():  # a kept tree keeps its project while it lists the targets
            text = self.recipe.project(self.root, self.folder) + listing_cmake(
                self.recipe.targets)
            (project / "CMakeLists.txt").write_text(text, encoding="utf-8")
            (self.build_dir / "build.ninja").unlink(missing_ok=True)  # configure it again
        configure(self.recipe.name, project, self.build_dir, self.root / LOG,
                  defines=self.recipe.defines, toolchain=self.recipe.toolchain,
                  cpu_flags=self.recipe.cpu_flags)
        self.configured = True

    def _listed(self) -> bool:
        return (self.build_dir / "build.ninja").is_file() and all(
            (self.build_dir / LISTS / f"{t}.txt").is_file() for t in self.recipe.targets)

    def precompile(self, missing: Mapping[str, str]) -> bool:
        """Compile the ``missing`` units (source -> its target) that reach the recipe's
        precompiled header with it, when enough of them share their options to pay for it
        (Ninja configures the tree again); whether a header is made."""
        chosen = self.recipe.precompiled
        # A kept tree would keep the header; GCC's header is the one shown to change no code
        # (clang refuses a header it judges different instead of reading the text).
        if chosen is None or self.recipe.tree is not None or not builds_with_gcc(
                self.recipe.toolchain):
            return False
        self._configure()
        commands = compile_commands(self.build_dir)
        users = {s: missing[s] for s in chosen.users({s: commands[s] for s in missing})}
        lines = precompile_cmake(chosen, users, commands, self.root)
        if not lines:  # no set of options has enough users to pay
            return False
        project = self.root / "project" / "CMakeLists.txt"
        self._plain = project.read_text(encoding="utf-8")
        project.write_text(self._plain + lines, encoding="utf-8")
        return True

    def without_precompiled(self) -> None:
        """The project as it was before :meth:`precompile` (Ninja configures it again): a
        compiler that fails on a unit with the header (GCC 12 has failed so on headers other
        than those :data:`~hpx_core.sdk.enginelib.precompiled.AVOIDED` names) still builds."""
        if self._plain is not None:
            (self.root / "project" / "CMakeLists.txt").write_text(self._plain, encoding="utf-8")

    def listing(self) -> tuple[TargetUnits, ...]:
        self._configure()
        return read_listing(self.build_dir, self.recipe.targets)

    def archiver(self) -> str:
        self._configure()
        return archiver(self.build_dir)

    def collected(self) -> Mapping[str, Any]:
        self._configure()
        collect = self.recipe.collect
        return dict(collect(self.build_dir, self.folder)) if collect is not None else {}

    def build(self, objects: Sequence[str], jobs: int, also: Sequence[str] = (), *,
              precompiled: bool = False) -> dict[str, Any]:
        self._configure()
        done = build_objects(self.recipe.name, self.root / "project", self.build_dir,
                             self.root / LOG, objects, jobs=jobs,
                             toolchain=self.recipe.toolchain, cpu_flags=self.recipe.cpu_flags,
                             also=also, precompiled=precompiled)
        facts = done.facts()
        if also:  # what the targets built alongside compiled is theirs
            facts |= {"compiled": done.compiled - done.apart, "alongside": done.apart}
        return facts


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
    """One thin archive per target holding the chosen objects in the target's own order,
    named as the whole library's archive (``lib<target>.a``) in a folder of the selection."""
    links = folder / "links" / digest[:16]
    links.mkdir(parents=True, exist_ok=True)
    made: dict[str, str] = {}
    for target in listing:
        members = [manifest["objects"][s] for s in
                   (portable(u.source, roots) for u in target.units) if s in chosen]
        if members:
            name = f"lib{target.target}.a"
            _thin_archive(manifest["archiver"], links, name, [f"../../{m}" for m in members])
            made[target.target] = (links / name).relative_to(folder).as_posix()
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
