"""The source cache: one folder per pinned repository under ``$HPX_CACHE_DIR/sources``.

Locks live beside it (``locks/``), never inside a checkout, so renaming a finished clone into
place and cleaning it are both done under the same per-repository lock.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

import attrs
from filelock import FileLock, Timeout

from hpx_core.cachedir import cache_root
from hpx_core.errors import SourceError
from hpx_core.log import get_logger
from hpx_core.sources.checkout import CheckoutState, inspect
from hpx_core.sources.pins import PinSet, RepoPin

log = get_logger()
LOCK_TIMEOUT_S = 3600.0


@attrs.frozen
class SourceCache:
    """Where checkouts, temporary clones and locks live."""

    root: Path = attrs.field(factory=cache_root, converter=Path)

    @property
    def sources(self) -> Path:
        return self.root / "sources"

    @property
    def locks(self) -> Path:
        return self.root / "locks"

    def checkout(self, name: str) -> Path:
        return self.sources / name

    def temp_prefix(self, name: str) -> str:
        return f".{name}.tmp-"

    def lock(self, name: str, timeout: float = LOCK_TIMEOUT_S) -> FileLock:
        """The lock of checkout ``name``; a locks folder that cannot be made (a file in its
        place) is one error naming it."""
        try:
            self.locks.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise SourceError(f"cannot make the cache's lock folder {self.locks} "
                              f"({error.strerror or error})",
                              f"remove what is at {self.locks}; it holds only hpx's locks"
                              ) from None
        return FileLock(str(self.locks / f"{name}.lock"), timeout=timeout)

    def remove_stale_temps(self, name: str) -> None:
        """Drop half-made clones left by an interrupted run (call holding the lock)."""
        if self.sources.is_dir():
            for stale in self.sources.glob(self.temp_prefix(name) + "*"):
                log.info("removing interrupted clone", path=str(stale))
                shutil.rmtree(stale, ignore_errors=True)


def folder_size(path: Path) -> int:
    """Bytes of the regular files under ``path`` (symlinks not followed)."""
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += (Path(dirpath) / name).lstat().st_size
            except OSError:
                continue
    return total


@attrs.frozen
class PinState:
    """One pin and what the cache holds for it."""

    pin: RepoPin
    path: Path
    state: CheckoutState


@attrs.frozen
class CacheEntry:
    name: str
    path: Path
    size: int


def _entries(value: Iterable[CacheEntry]) -> tuple[CacheEntry, ...]:
    return tuple(value)


@attrs.frozen
class CacheInfo:
    root: Path
    entries: tuple[CacheEntry, ...] = attrs.field(converter=_entries)

    @property
    def total(self) -> int:
        return sum(e.size for e in self.entries)


def pin_states(pins: Iterable[RepoPin], cache: SourceCache | None = None) -> tuple[PinState, ...]:
    """The cache state of each pin."""
    store = cache or SourceCache()
    return tuple(
        PinState(pin, store.checkout(pin.name), inspect(store.checkout(pin.name), pin))
        for pin in pins
    )


def cache_info(cache: SourceCache | None = None) -> CacheInfo:
    """Sizes of everything in the cache: each source checkout, and other top-level folders."""
    store = cache or SourceCache()
    entries: list[CacheEntry] = []
    if store.sources.is_dir():
        for child in sorted(store.sources.iterdir()):
            entries.append(CacheEntry(f"sources/{child.name}", child, folder_size(child)))
    if store.root.is_dir():
        for child in sorted(store.root.iterdir()):
            if child.name not in ("sources", "locks"):
                size = folder_size(child) if child.is_dir() else child.lstat().st_size
                entries.append(CacheEntry(child.name, child, size))
    return CacheInfo(store.root, entries)


def clean_cache(
    names: Iterable[str] | None = None,
    cache: SourceCache | None = None,
    catalog: PinSet | None = None,
) -> tuple[Path, ...]:
    """Remove source checkouts (the named ones, or all), each under its lock.

    With no names, other top-level cache folders go too. Returns what was removed.
    """
    store = cache or SourceCache()
    removed: list[Path] = []
    if names is None:
        wanted = sorted(p.name for p in store.sources.iterdir()) if store.sources.is_dir() else []
    else:
        wanted = list(names)
        known = catalog.repositories if catalog is not None else {}
        for name in wanted:
            if name not in known and not store.checkout(name).exists():
                raise SourceError(f"nothing cached for {name!r}", "see `hpx sources list`")
    for name in wanted:
        checkout_name = name.split(".tmp-")[0].lstrip(".") if name.startswith(".") else name
        try:
            with store.lock(checkout_name, timeout=60):
                path = store.sources / name
                if path.exists():
                    shutil.rmtree(path)
                    removed.append(path)
                store.remove_stale_temps(checkout_name)
        except Timeout:
            raise SourceError(
                f"{name} is in use by another hpx process", "retry when it has finished"
            ) from None
    if names is None and store.root.is_dir():
        for child in store.root.iterdir():
            if child.name in ("sources", "locks"):
                continue
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()
            removed.append(child)
    return tuple(removed)
