"""A folder in the engine cache, made once per key: locked, built aside, renamed into place.

Engine libraries (built from a file list, or through their own CMake) all live this way: a lock
per folder lets two runs wanting the same one build it once (the run that finds the lock taken
says it waits, :mod:`hpx_core.locks`, then finds the folder made); the build happens in a
temporary folder beside the final one and is renamed into place only when it succeeded, so an
interrupted build never leaves a usable-looking entry; a failed build's log is kept beside the
cache entry, where the error points.

An entry found whole is used without the lock and without writing (a read-only cache, a CI
image's, serves as well); only an entry to make or mend takes the lock.

An entry is checked before each use: its manifest must parse and name the key, and every file
the build left must be there with the size, and (when its time changed) the SHA-256, recorded
when it was made. A damaged entry (a truncated archive, a deleted or garbled manifest) is
removed and built once more, under the same lock, instead of failing every later build. The
sizes and times are checked on every use because hashing a library's 25 MB would cost a warm
run about 70 ms; a file whose time changed (a cache copied without its times) is hashed, and
the entry sealed again with its new times when it matches.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.errors import BuildError
from hpx_core.firmware.checking import may_build
from hpx_core.locks import hold
from hpx_core.sources import cache_root

MANIFEST = "manifest.json"
BUILD_LOG = "build.log"  # where a build writes its log inside its temporary folder
CONTENTS = "contents"  # the manifest's record of every file: size, time and SHA-256
ARCHIVE_MAGIC = b"!<arch>\n"

Make = Callable[[Path, Path], Mapping[str, Any]]
"""``make(temp, final)`` fills ``temp`` (it will be renamed to ``final``) and answers the
manifest's fields."""


@attrs.frozen
class CachedFolder:
    """The folder, its manifest, and whether this call built it (and how long it all took)."""

    folder: Path
    manifest: Mapping[str, Any]
    built: bool
    seconds: float


def entry_folder(name: str, key: str, root: Path | None = None) -> Path:
    """Where the cache keeps the library ``name`` made for ``key``."""
    return (root or cache_root()) / "engines" / f"{name}-{key[:20]}"


def is_cached(name: str, key: str, root: Path | None = None) -> bool:
    """The library is in the cache for ``key`` (its files unchecked: a hint, not a lock)."""
    return read_manifest(entry_folder(name, key, root), key) is not None


def cached_folder(name: str, key: str, make: Make, *, root: Path | None = None) -> CachedFolder:
    """``engines/<name>-<key[:20]>`` from the cache, or made now by ``make``."""
    final = entry_folder(name, key, root)
    base = final.parent
    started = time.monotonic()
    found = whole_as_found(final, key)
    if found is not None:  # no lock, nothing written: a read-only cache serves as well
        return CachedFolder(final, found, False, time.monotonic() - started)
    with hold(base / f".{final.name}.lock", f"engine library {final.name}"):
        # An interrupted build left its temporary folder; we hold the lock, so it is dead.
        for stale in base.glob(f".{final.name}.tmp-*"):
            shutil.rmtree(stale, ignore_errors=True)
        manifest = intact_manifest(final, key)
        built = manifest is None
        if manifest is None:
            may_build(f"the engine library {final.name}")
            discard(final)
            manifest = _make(final, key, make, started)
    return CachedFolder(final, manifest, built, time.monotonic() - started)


def read_manifest(folder: Path, key: str) -> dict[str, Any] | None:
    """The manifest of ``folder`` when it parses and names ``key`` (its files unchecked)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("key") == key else None


def whole_as_found(folder: Path, key: str) -> Mapping[str, Any] | None:
    """The manifest of ``folder`` when the entry is sealed, whole and made for ``key``, and
    nothing needs writing (no new file times to seal, no killed build's folder to clear, or a
    cache that cannot be written anyway); read without the lock. Entries are renamed into place
    whole and never changed, so what is whole now stays so. None: take the lock."""
    manifest = read_manifest(folder, key)
    contents = manifest.get(CONTENTS) if manifest is not None else None
    if manifest is None or not isinstance(contents, dict) or not contents:
        return None
    moved = _moved(folder, contents)
    if moved is None:
        return None
    tidy = not moved and not any(folder.parent.glob(f".{folder.name}.tmp-*"))
    return manifest if tidy or not os.access(folder.parent, os.W_OK) else None


def intact_manifest(folder: Path, key: str) -> Mapping[str, Any] | None:
    """The manifest of ``folder`` when the entry is whole and made for ``key``; else None.
    Call it holding the entry's lock: it seals new file times into the manifest."""
    manifest = read_manifest(folder, key)
    if manifest is None:
        return None
    contents = manifest.get(CONTENTS)
    if contents is None:  # made before entries were sealed: seal what is whole now
        return _seal_found(folder, manifest)
    if not isinstance(contents, dict) or not contents:
        return None
    moved = _moved(folder, contents)
    if moved is None:
        return None
    if moved:  # times changed, contents the same: keep the new times (best effort)
        write_manifest(folder, {**manifest, CONTENTS: {**contents, **moved}})
    return manifest


def _moved(folder: Path, contents: Mapping[str, Any]) -> dict[str, Any] | None:
    """The new records of files whose time alone changed; None when any file is damaged."""
    moved: dict[str, Any] = {}
    for rel, record in contents.items():
        state = file_state(folder / rel, record)
        if state is None:
            return None
        if state is not record:
            moved[rel] = state
    return moved


def file_state(path: Path, record: Any) -> Any:
    """``record`` when ``path`` matches it by size and time; a new record when only the time
    differs and the SHA-256 matches; None when the file is absent or other."""
    try:
        stat = path.stat()
        if stat.st_size != record["size"]:
            return None
        if stat.st_mtime_ns == record["mtime_ns"]:
            return record
        if _sha256(path) != record["sha256"]:
            return None
    except (OSError, KeyError, TypeError):
        return None
    return {**record, "mtime_ns": stat.st_mtime_ns}


def _seal_found(folder: Path, manifest: dict[str, Any]) -> Mapping[str, Any] | None:
    """An entry from before the seal: whole when every archive is a non-empty ar archive;
    then sealed as found."""
    for archive in folder.rglob("*.a"):
        try:
            with archive.open("rb") as file:
                if file.read(len(ARCHIVE_MAGIC)) != ARCHIVE_MAGIC:
                    return None
        except OSError:
            return None
    sealed = {**manifest, CONTENTS: folder_contents(folder)}
    write_manifest(folder, sealed)
    return sealed


def folder_contents(folder: Path) -> dict[str, Any]:
    """Every file of ``folder`` but its manifest and log: size, time and SHA-256."""
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_file() and not path.is_symlink() and rel not in (MANIFEST, BUILD_LOG):
            found[rel] = file_record(path)
    return found


def file_record(path: Path) -> dict[str, Any]:
    """What the manifest keeps of one file: size, time and SHA-256."""
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": _sha256(path)}


def _sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def write_manifest(folder: Path, manifest: Mapping[str, Any]) -> None:
    """Replace the manifest whole; a cache that cannot be written keeps the one it has."""
    temp = folder / f".{MANIFEST}.tmp"
    try:
        temp.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        temp.replace(folder / MANIFEST)
    except OSError:
        temp.unlink(missing_ok=True)


def discard(final: Path) -> None:
    """Remove a damaged entry: renamed aside first, so no reader sees half of it."""
    if not final.exists() and not final.is_symlink():
        return
    aside = final.parent / f".{final.name}.tmp-damaged"
    try:
        final.rename(aside)
    except OSError as error:
        raise BuildError(f"the engine library {final} is damaged and cannot be removed "
                         f"({error.strerror or error})",
                         f"remove {final} by hand; it is built again") from None
    if aside.is_dir() and not aside.is_symlink():
        shutil.rmtree(aside, ignore_errors=True)
    else:
        aside.unlink(missing_ok=True)


def _make(final: Path, key: str, make: Make, started: float) -> Mapping[str, Any]:
    # One fixed name (the lock is held): compiles see the same paths every time, which lets a
    # compiler cache hit when a library is built again.
    temp = final.parent / f".{final.name}.tmp-build"
    temp.mkdir()
    try:
        fields = make(temp, final)
        manifest = {"key": key, **fields, "seconds": round(time.monotonic() - started, 1),
                    CONTENTS: folder_contents(temp)}
        (temp / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        temp.chmod(0o755)
        temp.rename(final)
        return manifest
    except BuildError as error:
        kept = final.parent / f"{final.name}.failed.log"
        if (temp / BUILD_LOG).is_file():
            shutil.copyfile(temp / BUILD_LOG, kept)
        shutil.rmtree(temp, ignore_errors=True)
        raise BuildError(error.message, f"full log: {kept}") from error
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
