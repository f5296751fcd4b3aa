"""Verify a result bundle: only its own files, each as the manifest lists it, each of its shape.

A manifest is a list of names with SHA-256s, and whoever can change a bundle can rehash it. So
the hashes prove only that nothing changed by accident; what keeps a bundle from making hpx
read other files is refusing every name that is absolute, climbs out with ``..`` or resolves
through a link to a place outside the bundle. The JSON files are parsed from the very bytes
that were hashed and checked against their schemas (:mod:`hpx_core.results.bundle_schema`),
so readers get documents of the right shape and never open the files again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import attrs

from hpx_core.errors import ResultsError
from hpx_core.results.bundle_schema import REQUIRED_FILES, schema_of, shape_problem
from hpx_core.user_files import strict_json

MANIFEST = "manifest.json"
MAX_JSON_BYTES = 64 * 1024 * 1024  # a summary of 4,095 layers x 1,000 iterations is ~30 MB
_FOREIGN = "hpx writes bundles that list only their own files; this one was made or edited by hand"
_CHANGED = "the bundle was changed after hpx wrote it; re-run to get a trusted one"


@attrs.frozen
class BundleCheck:
    """A bundle that matched its manifest, with its JSON files parsed and shape-checked."""

    path: Path
    status: str
    files: tuple[str, ...]
    documents: Mapping[str, Any] = attrs.field(factory=dict, eq=False, repr=False)


def _root(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError) as error:
        raise ResultsError(f"{path} is not a result bundle ({error})", _FOREIGN) from None


def _lexical_problem(name: str) -> str | None:
    """Why ``name``, as written, cannot be a file of the bundle (None if it can)."""
    posix, windows = PurePosixPath(name), PureWindowsPath(name)
    if posix.is_absolute() or windows.is_absolute():
        return "is an absolute path"
    if ".." in posix.parts or ".." in windows.parts:
        return "climbs out of the bundle"
    if "\0" in name or name in ("", ".") or posix.parts[0] == MANIFEST:
        return "is not a file of the bundle"
    return None


def _inside(root: Path, name: str) -> Path:
    """The file ``name`` reaches, or ResultsError if it is not a file of this bundle."""
    problem = _lexical_problem(name)
    if problem is None:
        try:
            resolved = (root / name).resolve()
        except (OSError, RuntimeError) as error:  # RuntimeError: a link loop
            problem = f"cannot be resolved ({error})"
        else:
            if resolved == root or not resolved.is_relative_to(root):
                problem = "resolves outside the bundle"
    if problem is not None:
        raise ResultsError(f"bundle {root}: the manifest's {name!r} {problem}", _FOREIGN)
    return root / name


def _json(data: bytes, name: str, context: str, hint: str = _CHANGED) -> Any:
    """``data`` parsed, or ResultsError "<context>: <name> is not JSON (why)"."""
    try:
        return strict_json(data)
    except ValueError as error:
        why = str(error).split(";")[0]
        raise ResultsError(f"{context}: {name} is not JSON ({why})", hint) from None


def _manifest(path: Path, root: Path) -> dict[str, Any]:
    file = root / MANIFEST
    try:
        if not file.resolve().is_relative_to(root):
            raise ResultsError(f"bundle {root}: {MANIFEST} resolves outside the bundle", _FOREIGN)
        with file.open("rb") as stream:
            data = stream.read(MAX_JSON_BYTES + 1)
    except (OSError, RuntimeError) as error:
        raise ResultsError(
            f"{path} is not a result bundle: {MANIFEST} is missing or unreadable ({error})",
            "point at a folder written by hpx",
        ) from None
    context, hint = f"{path} is not a result bundle", "point at a folder written by hpx"
    if len(data) > MAX_JSON_BYTES:
        raise ResultsError(f"{context}: {MANIFEST} is over {MAX_JSON_BYTES >> 20} MiB", hint)
    manifest = _json(data, MANIFEST, context, hint)
    problem = shape_problem(MANIFEST, manifest)
    if problem:
        raise ResultsError(f"bundle {root} is malformed: {problem}", _CHANGED)
    assert isinstance(manifest, dict)
    return manifest


def _compare(file: Path, expected: Mapping[str, Any], keep: bool) -> tuple[str | None, bytes]:
    """What differs from the manifest entry (None if nothing), and the bytes when ``keep``."""
    modified = "was modified (sha256 or size differ from the manifest)"
    try:
        if not file.is_file():
            return "is missing", b""
        if file.stat().st_size != expected["size"]:
            return modified, b""
        if keep and expected["size"] > MAX_JSON_BYTES:
            return f"is larger than the {MAX_JSON_BYTES >> 20} MiB hpx reads", b""
        digest, kept = hashlib.sha256(), bytearray()
        with file.open("rb") as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
                if keep:
                    kept += chunk
    except OSError as error:
        return f"cannot be read ({error.strerror})", b""
    return (None, bytes(kept)) if digest.hexdigest() == expected["sha256"] else (modified, b"")


def verify_bundle(path: Path) -> BundleCheck:
    """Check every file against the manifest and every JSON file against its schema.

    ResultsError names the first name that is not the bundle's own, then every difference from
    the manifest, then the first file of the wrong shape.
    """
    root = _root(path)
    manifest = _manifest(path, root)
    listed: dict[str, dict[str, Any]] = manifest["files"]
    files = {name: _inside(root, name) for name in sorted(listed)}
    absent = [name for name in REQUIRED_FILES if name not in listed]
    if absent:
        raise ResultsError(f"bundle {root} is incomplete: the manifest lists no "
                           f"{', '.join(absent)}, which every bundle has", _CHANGED)
    problems, raw = [], {}
    for name, file in files.items():
        problem, raw[name] = _compare(file, listed[name], keep=schema_of(name) is not None)
        if problem:
            problems.append(f"{name} {problem}")
    present = {p.name for p in root.iterdir() if p.name != MANIFEST}
    problems += [f"{name} is not in the manifest" for name in sorted(present - set(listed))]
    if problems:
        raise ResultsError(f"bundle {path} fails verification: " + "; ".join(problems), _CHANGED)
    documents = _documents(root, raw)
    unlisted = [name for name in _named_files(documents["summary.json"]) if name not in listed]
    if unlisted:
        raise ResultsError(f"bundle {root} is incomplete: summary.json names "
                           f"{', '.join(unlisted)}, which the manifest does not list", _CHANGED)
    status = str(manifest["status"])
    if documents["summary.json"].get("status") != status:
        raise ResultsError(
            f"bundle {root} contradicts itself: {MANIFEST} says status {status!r}, summary.json "
            f"says {documents['summary.json'].get('status')!r}", _CHANGED,
        )
    return BundleCheck(path, status, tuple(files), documents)


_FILE_KEYS = ("file", "estimate", "debug_buffer")
"""Keys by which a summary's sections (and the engines' records under ``extra``) name a file
of the bundle: a pass's file and a second one (an estimate), a recorded trace's buffer."""


def _named_files(summary: Mapping[str, Any]) -> list[str]:
    """The bundle files ``summary`` points its readers at."""
    extra = summary.get("extra")
    records = [*summary.values(), *(extra.values() if isinstance(extra, dict) else ())]
    return sorted({record[key] for record in records if isinstance(record, dict)
                   for key in _FILE_KEYS if isinstance(record.get(key), str)})


def _documents(root: Path, raw: Mapping[str, bytes]) -> dict[str, Any]:
    documents: dict[str, Any] = {}
    for name, data in raw.items():
        if schema_of(name) is None:
            continue
        document = _json(data, name, f"bundle {root} is malformed")
        problem = shape_problem(name, document)
        if problem:
            raise ResultsError(f"bundle {root} is malformed: {problem}", _CHANGED)
        documents[name] = document
    return documents
