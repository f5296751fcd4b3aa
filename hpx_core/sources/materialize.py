"""Materialize pinned repositories into the cache with gitpython.

Every run force-syncs: the checkout is detached at the exact commit, local edits and untracked
files are discarded, and only the named submodules are initialized at their recorded commits,
so the pin alone defines the build (a checkout found exactly so is left as it is, and one
unchanged since it was found so is not asked again: :mod:`hpx_core.sources.memo`). A first
clone is made in a temporary folder and renamed into place, so an interrupted clone never
leaves a half cache; a file lock per repository lets concurrent runs share the cache. A cache
hpx cannot write (a CI image's shared cache mounted read-only) is read: a checkout found exactly
at its pin is used, and only one that would have to be fetched or synced is refused.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
from filelock import Timeout

from hpx_core.errors import SourceError
from hpx_core.log import get_logger
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.checkout import inspect
from hpx_core.sources.licensing import BoardLike, check_may_run
from hpx_core.sources.memo import remember, remembered
from hpx_core.sources.pins import PinSet, RepoPin, core_pins
from hpx_core.sources.records import Provenance, SourceRepo, SourceSet

if TYPE_CHECKING:
    from hpx_core.sources.sync import ProgressFn

log = get_logger()
PARALLEL_PINS = 8


def _quiet(_name: str, _phase: str, _fraction: float | None) -> None:
    return None


def _repos(value: Iterable[SourceRepo]) -> tuple[SourceRepo, ...]:
    return tuple(value)


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class Materialized:
    """One pinned repository in the cache: its records (root first, then submodules)."""

    repos: tuple[SourceRepo, ...] = attrs.field(converter=_repos)
    absent_optional: tuple[str, ...] = attrs.field(default=(), converter=_strs)


def _records(pin: RepoPin, root: Path, missing: Iterable[str]) -> Materialized:
    absent = tuple(missing)
    subs = [
        SourceRepo(s.name, s.url, s.commit, root / s.path, s.license)
        for s in pin.submodules
        if s.path not in absent
    ]
    top = SourceRepo(pin.name, pin.url, pin.commit, root, pin.license)
    return Materialized([top, *subs], absent)


def _fresh_clone(pin: RepoPin, store: SourceCache, report: ProgressFn) -> None:
    from hpx_core.sources.sync import clone, force_sync  # GitPython: only when git must run

    final = store.checkout(pin.name)
    store.sources.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=store.temp_prefix(pin.name), dir=store.sources))
    try:
        report(pin.name, "cloning", None)
        clone(pin, temp, report)
        force_sync(temp, pin, report)
        temp.chmod(0o755)  # mkdtemp made it private; the cache is shared
        temp.rename(final)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def _verified(pin: RepoPin, path: Path, offline: bool) -> list[str]:
    state = inspect(path, pin)
    if state.state != "at pin":
        how = "--offline needs" if offline else "after sync, expected"
        raise SourceError(
            f"{pin.name} in the cache is {state.state} ({state.detail or path}); {how} "
            f"{pin.commit} and a clean tree",
            f"run `hpx sources fetch` without --offline, or `hpx cache clean {pin.name}`",
        )
    return list(state.absent_optional)


def materialize_pin(
    pin: RepoPin,
    cache: SourceCache | None = None,
    *,
    offline: bool = False,
    progress: ProgressFn | None = None,
) -> Materialized:
    """Bring ``pin`` into the cache, exactly at its commit and clean, and describe it."""
    store = cache or SourceCache()
    report = progress or _quiet
    return _unchanged(pin, store, report) or _synced(pin, store, report, offline=offline)


def _unchanged(pin: RepoPin, store: SourceCache, report: ProgressFn) -> Materialized | None:
    """``pin``'s checkout when nothing in it changed since it was found at the pin (no git
    asked, no lock taken: the note is replaced whole, and a sync under way changes what it
    is compared with), else None."""
    final = store.checkout(pin.name)
    if not final.exists() or not remembered(store.locks, pin, final):
        return None
    return _done(pin, final, [], report)


def _read_only(pin: RepoPin, store: SourceCache, report: ProgressFn, *,
               offline: bool) -> Materialized:
    """``pin``'s checkout in a cache hpx cannot write (a shared cache mounted read-only): used
    when git finds it exactly at the pin and complete; refused when it would have to be
    written."""
    final = store.checkout(pin.name)
    if offline:
        return _done(pin, final, _verified(pin, final, offline=True), report)
    state = inspect(final, pin)
    if state.state == "at pin" and not state.absent_optional:
        return _done(pin, final, [], report)
    what = state.state if final.exists() else "absent"
    raise SourceError(
        f"{pin.name} must be fetched into the cache {store.root}, which hpx cannot write: it "
        f"is {what} there ({state.detail or final})",
        "make the cache writable, or set HPX_CACHE_DIR to a folder hpx can write "
        "(`hpx prepare` fills one)")


def _writable(store: SourceCache) -> bool:
    """hpx can make its locks in the cache (or the folders to hold them)."""
    existing = next((p for p in (store.locks, *store.locks.parents) if p.exists()), None)
    return existing is not None and os.access(existing, os.W_OK)


def _synced(pin: RepoPin, store: SourceCache, report: ProgressFn, *,
            offline: bool) -> Materialized:
    final = store.checkout(pin.name)
    if offline and not final.exists():
        _verified(pin, final, offline=True)  # refuses: nothing to lock, nothing to write
    if not _writable(store):
        return _read_only(pin, store, report, offline=offline)
    with _locked(store, pin):
        report(pin.name, "locked", None)
        store.remove_stale_temps(pin.name)
        if final.exists() and remembered(store.locks, pin, final):
            missing: list[str] = []  # found unchanged since another run checked it
        else:
            missing = _bring(pin, store, report, offline=offline)
            if not missing:
                remember(store.locks, pin, final)
    return _done(pin, final, missing, report)


@contextlib.contextmanager
def _locked(store: SourceCache, pin: RepoPin) -> Iterator[None]:
    lock = store.lock(pin.name)
    try:
        lock.acquire()
    except Timeout:  # before OSError: filelock's Timeout is a TimeoutError
        raise SourceError(
            f"timed out waiting for the cache lock of {pin.name}",
            f"another hpx process is materializing it; lock files are in {store.locks}",
        ) from None
    except OSError as error:
        raise SourceError(f"cannot take the cache lock {lock.lock_file} "
                          f"({error.strerror or error})",
                          f"{store.locks} must be a folder hpx can write in") from None
    try:
        yield
    finally:
        lock.release()


def _done(pin: RepoPin, final: Path, missing: list[str], report: ProgressFn) -> Materialized:
    report(pin.name, "done", 1.0)
    log.info("materialized", repo=pin.name, commit=pin.commit, path=str(final))
    return _records(pin, final, missing)


def _bring(pin: RepoPin, store: SourceCache, report: ProgressFn, *, offline: bool) -> list[str]:
    """Verify (offline) or sync the checkout; the optional submodules it still lacks."""
    final = store.checkout(pin.name)
    if offline:
        return _verified(pin, final, offline=True)
    if not _update_or_clone(pin, store, report):
        return _verified(pin, final, offline=False)
    return []


def _update_or_clone(pin: RepoPin, store: SourceCache, report: ProgressFn) -> bool:
    """Sync the checkout; True when it was already exactly at the pin, complete and clean."""
    final = store.checkout(pin.name)
    if final.exists():
        state = inspect(final, pin)
        if state.state == "at pin" and not state.absent_optional:
            return True  # a force-sync would change nothing
        if state.state != "invalid":
            from hpx_core.sources.sync import force_sync

            force_sync(final, pin, report)
            return False
        log.info("replacing unusable checkout", path=str(final), reason=state.detail)
        shutil.rmtree(final)
    _fresh_clone(pin, store, report)
    return False


def _synced_side_by_side(pins: list[RepoPin], store: SourceCache, report: ProgressFn, *,
                         offline: bool) -> dict[str, Materialized]:
    """Each pin synced on a thread of its own. Stopped (Ctrl-C, SIGTERM), no pin still
    waiting starts; the fetches under way end whole (a clone is renamed into place only then,
    or removed), which the stop waits for."""
    pool = ThreadPoolExecutor(max_workers=PARALLEL_PINS)
    try:
        found = pool.map(lambda p: _synced(p, store, report, offline=offline), pins)
        return dict(zip((pin.name for pin in pins), found, strict=True))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def provenance_of(parts: Iterable[Provenance]) -> Provenance:
    """The weakest provenance among ``parts``."""
    chosen = set(parts)
    if "development-overrides" in chosen:
        return "development-overrides"
    if "qualified-with-engine-override" in chosen:
        return "qualified-with-engine-override"
    return "qualified"


def materialize_pins(
    pins: Iterable[RepoPin],
    *,
    overrides: Mapping[str, Path] | None = None,
    allow_unpinned: bool = False,
    offline: bool = False,
    cache: SourceCache | None = None,
    progress: ProgressFn | None = None,
) -> SourceSet:
    """Materialize ``pins``; ``overrides`` maps a repository name to a local checkout."""
    from hpx_core.sources.overrides import use_override

    chosen = list(pins)
    given = dict(overrides or {})
    unknown = sorted(set(given) - {p.name for p in chosen})
    if unknown:
        names = ", ".join(p.name for p in chosen)
        raise SourceError(f"override for unknown repository {unknown[0]!r}", f"pinned: {names}")
    store, report = cache or SourceCache(), progress or _quiet
    cached = [pin for pin in chosen if pin.name not in given]
    # A checkout unchanged since it was found at its pin costs a walk of its folder: those go
    # one after another (threads would only take turns). The others ask git a few questions
    # each, or fetch: side by side (one lock per pin), so a cold run's pins do not add up.
    done = {pin.name: found for pin in cached if (found := _unchanged(pin, store, report))}
    rest = [pin for pin in cached if pin.name not in done]
    if rest:
        done |= _synced_side_by_side(rest, store, report, offline=offline)
    repos: list[SourceRepo] = []
    stamps: list[Provenance] = []
    for pin in chosen:
        if pin.name in given:
            records, stamp = use_override(pin, given[pin.name], allow_unpinned=allow_unpinned)
            repos += records
            stamps.append(stamp)
            continue
        repos += done[pin.name].repos
        stamps.append("development-overrides" if done[pin.name].absent_optional else "qualified")
    return SourceSet(repos=repos, provenance=provenance_of(stamps))


def materialize(
    catalog: PinSet,
    engine: str,
    backend: str | None = None,
    *,
    board: BoardLike | None = None,
    known_boards: Iterable[BoardLike] | None = None,
    source_path: Path | None = None,
    overrides: Mapping[str, Path] | None = None,
    allow_unpinned: bool = False,
    offline: bool = False,
    cache: SourceCache | None = None,
    progress: ProgressFn | None = None,
) -> SourceSet:
    """The sources of ``engine``/``backend`` at their pins, after the license check for ``board``.

    ``catalog`` is every pin hpx knows (``SourcesRequest.catalog``); ``source_path`` replaces the
    engine's primary repository with a local checkout.
    """
    if board is not None:
        if known_boards is None:
            from hpx_core.boards import all_boards

            known_boards = all_boards().values()
        check_may_run(catalog, engine, backend, board, known_boards)
    given = dict(overrides or {})
    if source_path is not None:
        given[catalog.engine(engine).primary] = source_path
    return materialize_pins(
        catalog.pins_for(engine, backend),
        overrides=given,
        allow_unpinned=allow_unpinned,
        offline=offline,
        cache=cache,
        progress=progress,
    )


def materialize_board(
    family: str,
    *,
    offline: bool = False,
    cache: SourceCache | None = None,
    progress: ProgressFn | None = None,
) -> SourceSet:
    """The board support sources of a board family (e.g. ``apollo``) at the core's pins."""
    return materialize_pins(
        core_pins().pins_for_board(family), offline=offline, cache=cache, progress=progress
    )
