"""A units folder with a damaged object or link archive loses only what was damaged.

A kernel library's units folder holds dozens of objects, each compiled once and checked before
every use against the manifest's record (size, time, SHA-256). Removing the whole folder for
one truncated object, as a library built whole must be, would compile every unit again (46 of
them, ten minutes under load, for one engine's kernels); here the damaged objects are forgotten,
as are the link archives that name them, so the extension that follows compiles those units alone
and writes the archives again. What cannot be remade one at a time (the manifest itself, the
headers staged once, files collected from the first build) still sends the folder to be made
again whole. Call it holding the folder's lock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hpx_core.log import get_logger
from hpx_core.sdk.enginelib.cached import CONTENTS, file_state, read_manifest
from hpx_core.sdk.enginelib.units import selection_digest

log = get_logger()
REMADE_ONE_BY_ONE = ("objects/", "links/")  # what an extension makes again by itself


def repaired_manifest(folder: Path, key: str) -> dict[str, Any] | None:
    """The manifest of ``folder`` with its damaged objects and link archives forgotten (and
    their files removed); None when the folder must be made again whole."""
    manifest = read_manifest(folder, key)
    contents = manifest.get(CONTENTS) if manifest is not None else None
    if manifest is None or not isinstance(contents, dict) or not contents:
        return None
    damaged, checked = _checked(folder, contents)
    if any(not rel.startswith(REMADE_ONE_BY_ONE) for rel in damaged):
        return None
    manifest[CONTENTS] = checked
    if damaged:
        _forget(folder, manifest, damaged)
    return manifest


def _checked(folder: Path, contents: Mapping[str, Any]) -> tuple[set[str], dict[str, Any]]:
    """The files that no longer match their records, and the records of the others (new
    times kept for files whose contents are unchanged)."""
    damaged: set[str] = set()
    checked: dict[str, Any] = {}
    for rel, record in contents.items():
        state = file_state(folder / rel, record)
        if state is None:
            damaged.add(rel)
        else:
            checked[rel] = state
    return damaged, checked


def _forget(folder: Path, manifest: dict[str, Any], damaged: set[str]) -> None:
    """Drop the damaged objects and every link archive set that is damaged or names one of
    them, from the manifest and from the folder."""
    objects: dict[str, str] = manifest.get("objects", {})
    lost = {source for source, rel in objects.items() if rel in damaged}
    manifest["objects"] = {s: rel for s, rel in objects.items() if s not in lost}
    links: dict[str, dict[str, str]] = manifest.get("links", {})
    chosen = {selection_digest(s): set(s) for s in manifest.get("selections", {}).values()}
    stale = {digest for digest, archives in links.items()
             if damaged & set(archives.values()) or lost & chosen.get(digest, set())}
    manifest["links"] = {d: archives for d, archives in links.items() if d not in stale}
    dropped = damaged | {rel for d in stale for rel in links[d].values()}
    manifest[CONTENTS] = {rel: r for rel, r in manifest[CONTENTS].items() if rel not in dropped}
    _remove(folder, dropped)
    log.info("damaged units forgotten", folder=folder.name, objects=sorted(lost),
             link_sets=len(stale))


def _remove(folder: Path, rels: Iterable[str]) -> None:
    for rel in rels:
        (folder / rel).unlink(missing_ok=True)
