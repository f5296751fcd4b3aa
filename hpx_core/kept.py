"""JSON documents hpx keeps in its cache, named by what decides their content.

A warm run should not redo work whose inputs did not change: the facts of an ELF (lief), the
analysis of a model (the flatbuffers schemas, NumPy), the host reference outputs (the
interpreter). Each is a small JSON document under ``$HPX_CACHE_DIR/<folder>``, named by the
digests of its inputs. A document is written to a temporary file and renamed, so a reader sees
a whole one or none; anything unreadable is simply computed again; a cache that cannot be
written only costs the next run the same work. A folder may keep only its most recently used
documents.

Each document is sealed: stored beside its key and the SHA-256 of both (the canonical JSON of
the content and the key it was made for), and read back only when the seal holds. A document
edited by hand, damaged on disk or copied under another key is treated as absent and made
again, so a kept analysis, input or host output can never say other than what its inputs
give. The seal guards against accidents and careless edits, not against someone who rewrites
the digest as well: the cache is the user's own folder.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import attrs

from hpx_core.cachedir import cache_root


@attrs.frozen
class KeptFolder:
    """One kind of kept document: ``$HPX_CACHE_DIR/<name>/<key>.json``."""

    name: str
    keep: int | None = None  # documents kept, most recently used first; None: all

    def path(self, key: str) -> Path:
        return cache_root() / self.name / f"{key}.json"

    def load(self, key: str) -> Any:
        """The document named ``key`` (JSON, as stored), or None when it is absent,
        unreadable or its seal does not hold; callers check its shape, as of any file another
        process wrote."""
        path = self.path(key)
        try:
            sealed = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(sealed, dict) or sealed.get("key") != key or "document" not in sealed:
            return None
        document = sealed["document"]
        if sealed.get("sha256") != _seal(key, document):
            return None
        if self.keep is not None:
            with contextlib.suppress(OSError):  # a read-only cache is read all the same
                path.touch()  # recently used: kept when older documents are pruned
        return document

    def store(self, key: str, document: Any) -> None:
        """Keep ``document`` as ``key`` (whole or not at all), then prune the folder."""
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)  # one per writer
        except OSError:
            return
        temp = Path(name)
        try:
            sealed = {"key": key, "sha256": _seal(key, document), "document": document}
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(sealed, file, separators=(",", ":"))
            temp.chmod(0o644)
            temp.replace(path)
        except OSError:
            temp.unlink(missing_ok=True)
            return
        if self.keep is not None:
            _prune(path.parent, self.keep)


    def load_blobs(self, key: str) -> tuple[bytes, ...] | None:
        """The byte strings :meth:`store_blobs` kept as ``key``, or None."""
        try:
            return tuple(base64.b64decode(item, validate=True)
                         for item in self.load(key)["blobs"])
        except (KeyError, TypeError, binascii.Error):
            return None  # absent or damaged

    def store_blobs(self, key: str, blobs: tuple[bytes, ...], **about: str) -> None:
        """Keep byte strings (base64 in the JSON), with ``about`` as plain fields beside them."""
        self.store(key, {**about, "blobs": [base64.b64encode(b).decode() for b in blobs]})


def _seal(key: str, document: Any) -> str:
    """The SHA-256 of ``key`` and the canonical JSON of ``document``."""
    text = json.dumps([key, document], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _prune(folder: Path, keep: int) -> None:
    """Remove all but the ``keep`` most recently used documents (a concurrent prune may have
    removed some already)."""
    entries = []
    for path in folder.glob("*.json"):
        try:
            entries.append((path.stat().st_mtime_ns, path))
        except OSError:
            continue
    for _, path in sorted(entries, reverse=True)[keep:]:
        with contextlib.suppress(OSError):  # a read-only cache keeps what it has
            path.unlink(missing_ok=True)
