"""Change a real bundle the way an attacker would: edit a file and make the manifest agree.

A manifest is only a list of SHA-256s, so anyone who can write a bundle can also rehash it;
these helpers do exactly that, to show what verification must refuse even when every hash
matches.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def entry(file: Path) -> dict[str, Any]:
    """The manifest entry of ``file``'s content (links followed, as a reader would)."""
    data = file.read_bytes()
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def copy_bundle(bundle: Path, into: Path) -> Path:
    """A copy of ``bundle`` under ``into`` (bundles from the shared cache stay untouched)."""
    into.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copytree(bundle, into / bundle.name))


def write_manifest(bundle: Path, files: Any, **fields: Any) -> None:
    """Replace the manifest's ``files`` (any JSON, even a wrong shape) and other fields."""
    manifest = json.loads((bundle / "manifest.json").read_text("utf-8"))
    manifest["files"] = files
    manifest.update(fields)
    (bundle / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")


def rehash(bundle: Path, extra: Mapping[str, Path] | None = None) -> None:
    """Make the manifest match the bundle's files as they are now, plus ``extra`` entries
    (manifest name -> the file whose content that name reaches)."""
    files = {p.name: entry(p) for p in sorted(bundle.iterdir()) if p.name != "manifest.json"}
    files |= {name: entry(target) for name, target in (extra or {}).items()}
    write_manifest(bundle, files)


def edit_json(bundle: Path, name: str, change: Mapping[str, Any]) -> None:
    """Set top-level keys of the bundle's JSON file ``name`` and rehash the manifest."""
    path = bundle / name
    document = json.loads(path.read_text("utf-8"))
    document.update(change)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", "utf-8")
    rehash(bundle)
