"""A folder in the engine cache, made once per key: locked, built aside, renamed into place.

Engine libraries (TFLM's from a file list, heliaRT's, ExecuTorch's and ns-cmsis-nn's through
their own CMake) all live this way: a lock per folder lets two runs wanting the same one build
it once (the run that finds the lock taken says it waits, :mod:`hpx_core.locks`, then finds the
folder made); the build happens in a temporary folder beside the final one and is renamed into
place only when it succeeded, so an interrupted build never leaves a usable-looking entry; a failed
build's log is kept beside the cache entry, where the error points.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.errors import BuildError
from hpx_core.locks import hold
from hpx_core.sources import cache_root

MANIFEST = "manifest.json"
BUILD_LOG = "build.log"  # where a build writes its log inside its temporary folder

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


def cached_folder(name: str, key: str, make: Make, *, root: Path | None = None) -> CachedFolder:
    """``engines/<name>-<key[:20]>`` from the cache, or made now by ``make``."""
    base = (root or cache_root()) / "engines"
    final = base / f"{name}-{key[:20]}"
    started = time.monotonic()
    base.mkdir(parents=True, exist_ok=True)
    with hold(base / f".{final.name}.lock", f"engine library {final.name}"):
        built = not (final / MANIFEST).is_file()
        if built:
            # An interrupted build left its temporary folder; we hold the lock, so it is dead.
            for stale in base.glob(f".{final.name}.tmp-*"):
                shutil.rmtree(stale, ignore_errors=True)
            _make(final, key, make, started)
    manifest = json.loads((final / MANIFEST).read_text(encoding="utf-8"))
    return CachedFolder(final, manifest, built, time.monotonic() - started)


def _make(final: Path, key: str, make: Make, started: float) -> None:
    # One fixed name (the lock is held): compiles see the same paths every time, which lets a
    # compiler cache hit when a library is built again.
    temp = final.parent / f".{final.name}.tmp-build"
    temp.mkdir()
    try:
        fields = make(temp, final)
        manifest = {"key": key, **fields, "seconds": round(time.monotonic() - started, 1)}
        (temp / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        temp.chmod(0o755)
        temp.rename(final)
    except BuildError as error:
        kept = final.parent / f"{final.name}.failed.log"
        if (temp / BUILD_LOG).is_file():
            shutil.copyfile(temp / BUILD_LOG, kept)
        shutil.rmtree(temp, ignore_errors=True)
        raise BuildError(error.message, f"full log: {kept}") from error
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
