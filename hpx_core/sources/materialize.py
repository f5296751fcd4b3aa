"""Materialize pinned repositories into the cache with gitpython.

Every run force-syncs: the checkout is detached at the exact commit, local edits and untracked
files are discarded, and only the named submodules are initialized at their recorded commits,
so the pin alone defines the build. A first clone is made in a temporary folder and renamed
into place, so an interrupted clone never leaves a half cache; a file lock per repository lets
concurrent runs share the cache.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import attrs
import git
import structlog
from filelock import Timeout

from hpx_core.engine import Provenance, SourceRepo, SourceSet
from hpx_core.errors import SourceError
from hpx_core.sources.baseline import Baseline, RepoPin, SubmodulePin, load_baseline
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.checkout import git_at, gitlink, inspect, split_submodule
from hpx_core.sources.licensing import BoardLike, check_may_run

log = structlog.get_logger()

ProgressFn = Callable[[str, str, float | None], None]
"""Called with (repository name, phase, fraction done or None)."""


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


def mirror_hint(url: str) -> str:
    return (
        f"check that the commit exists at {url}; to use a local mirror: "
        f"git config --global url.<mirror>.insteadOf {url}"
    )


def _git_message(exc: git.GitCommandError) -> str:
    lines = [line.strip() for line in str(exc.stderr or exc).splitlines() if line.strip()]
    return lines[-1].strip("'") if lines else str(exc)


class _CloneProgress(git.RemoteProgress):
    def __init__(self, name: str, report: ProgressFn) -> None:
        super().__init__()
        self._name = name
        self._report = report

    def update(
        self,
        op_code: int,
        cur_count: str | float,
        max_count: str | float | None = None,
        message: str = "",
    ) -> None:
        if max_count:
            self._report(self._name, "cloning", float(cur_count) / float(max_count))


def _has_commit(runner: git.Git, commit: str) -> bool:
    try:
        runner.cat_file("-e", f"{commit}^{{commit}}")
    except git.GitCommandError:
        return False
    return True


def _ensure_commit(path: Path, url: str, commit: str) -> None:
    """Fetch ``commit`` into ``path`` unless present; refuse with the mirror hint if unreachable."""
    runner = git_at(path)
    if _has_commit(runner, commit):
        return
    problem = ""
    for args in (("origin",), ("origin", commit)):
        try:
            runner.fetch("--tags", "--force", *args)
        except git.GitCommandError as exc:
            problem = _git_message(exc)
        if _has_commit(runner, commit):
            return
    detail = f": {problem}" if problem else ""
    raise SourceError(f"commit {commit} is not reachable from {url}{detail}", mirror_hint(url))


def _clone(url: str, dest: Path, name: str, report: ProgressFn) -> None:
    watcher = _CloneProgress(name, report)
    try:
        git.Repo.clone_from(url, str(dest), no_checkout=True, progress=watcher)  # type: ignore[arg-type]
    except git.GitCommandError as exc:
        said = [line.strip() for line in watcher.error_lines + watcher.other_lines if line.strip()]
        reason = said[-1] if said else _git_message(exc)
        raise SourceError(f"cannot clone {url}: {reason}", mirror_hint(url)) from exc


def _force_sync(path: Path, commit: str) -> None:
    runner = git_at(path)
    runner.checkout("--force", "--detach", commit)
    runner.reset("--hard", commit)
    runner.clean("-ffdx")


def _initialized_submodules(path: Path) -> list[str]:
    out = str(git_at(path).submodule("status"))
    return [line[1:].split()[1] for line in out.splitlines() if line and line[0] != "-"]


def _deinit_unlisted(root: Path, pin: RepoPin, missing: list[str]) -> None:
    """Only the named submodules stay initialized (a baseline may drop one)."""
    wanted = {s.path for s in pin.submodules if s.path not in missing}
    for level in ["", *sorted(wanted)]:
        base = root / level if level else root
        for rel in _initialized_submodules(base):
            full = f"{level}/{rel}" if level else rel
            if full not in wanted:
                git_at(base).submodule("deinit", "--force", "--", rel)


def _sync_submodule(root: Path, pin: RepoPin, sub: SubmodulePin) -> bool:
    """Initialize ``sub`` at its recorded commit; False when optional and unreachable."""
    parent, rel = split_submodule(root, pin, sub)
    recorded = gitlink(parent, rel)
    if recorded != sub.commit:
        raise SourceError(
            f"{pin.name}@{pin.commit[:12]} records submodule {sub.path} at {recorded}, "
            f"the baseline says {sub.commit}",
            "the baseline is inconsistent: pin the superproject's recorded commit",
        )
    try:
        git_at(parent, allow_file_protocol=True).submodule("update", "--init", "--force", "--", rel)
    except git.GitCommandError as exc:
        if sub.required:
            raise SourceError(
                f"submodule {sub.path} of {pin.name}: commit {sub.commit} is not reachable from "
                f"{sub.url}: {_git_message(exc)}",
                mirror_hint(sub.url),
            ) from exc
        log.warning(
            "optional submodule not materialized",
            repo=pin.name,
            path=sub.path,
            commit=sub.commit,
            reason=_git_message(exc),
        )
        git_at(parent).submodule("deinit", "--force", "--", rel)
        return False
    runner = git_at(root / sub.path)
    runner.reset("--hard", sub.commit)
    runner.clean("-ffdx")
    return True


def _sync(path: Path, pin: RepoPin, report: ProgressFn) -> list[str]:
    """Force-sync ``path`` to ``pin``; returns optional submodules that could not be had."""
    report(pin.name, "fetching", None)
    _ensure_commit(path, pin.url, pin.commit)
    report(pin.name, "checking out", None)
    try:
        _force_sync(path, pin.commit)
    except git.GitCommandError as exc:
        raise SourceError(
            f"cannot check out {pin.name} at {pin.commit}: {_git_message(exc)}",
            "run `hpx cache clean` and retry",
        ) from exc
    missing: list[str] = []
    for sub in pin.submodules:
        report(pin.name, f"submodule {sub.path}", None)
        if not _sync_submodule(path, pin, sub):
            missing.append(sub.path)
    _deinit_unlisted(path, pin, missing)
    return missing


def _records(pin: RepoPin, root: Path, missing: Iterable[str]) -> Materialized:
    absent = tuple(missing)
    subs = [
        SourceRepo(s.name, s.url, s.commit, root / s.path, s.license)
        for s in pin.submodules
        if s.path not in absent
    ]
    top = SourceRepo(pin.name, pin.url, pin.commit, root, pin.license)
    return Materialized([top, *subs], absent)


def _fresh_clone(pin: RepoPin, store: SourceCache, report: ProgressFn) -> list[str]:
    final = store.checkout(pin.name)
    store.sources.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=store.temp_prefix(pin.name), dir=store.sources))
    try:
        report(pin.name, "cloning", None)
        _clone(pin.url, temp, pin.name, report)
        missing = _sync(temp, pin, report)
        temp.chmod(0o755)  # mkdtemp made it private; the cache is shared
        temp.rename(final)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise
    return missing


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
    final = store.checkout(pin.name)
    try:
        with store.lock(pin.name):
            report(pin.name, "locked", None)
            store.remove_stale_temps(pin.name)
            if offline:
                missing = _verified(pin, final, offline=True)
            else:
                missing = _update_or_clone(pin, store, report)
                _verified(pin, final, offline=False)
    except Timeout:
        raise SourceError(
            f"timed out waiting for the cache lock of {pin.name}",
            f"another hpx process is materializing it; lock files are in {store.locks}",
        ) from None
    report(pin.name, "done", 1.0)
    log.info("materialized", repo=pin.name, commit=pin.commit, path=str(final))
    return _records(pin, final, missing)


def _update_or_clone(pin: RepoPin, store: SourceCache, report: ProgressFn) -> list[str]:
    final = store.checkout(pin.name)
    if final.exists():
        state = inspect(final, pin)
        if state.state != "invalid":
            return _sync(final, pin, report)
        log.info("replacing unusable checkout", path=str(final), reason=state.detail)
        shutil.rmtree(final)
    return _fresh_clone(pin, store, report)


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
    repos: list[SourceRepo] = []
    stamps: list[Provenance] = []
    for pin in chosen:
        if pin.name in given:
            records, stamp = use_override(pin, given[pin.name], allow_unpinned=allow_unpinned)
            repos += records
            stamps.append(stamp)
            continue
        done = materialize_pin(pin, cache, offline=offline, progress=progress)
        repos += done.repos
        stamps.append("development-overrides" if done.absent_optional else "qualified")
    return SourceSet(repos=repos, provenance=provenance_of(stamps))


def materialize(
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
    baseline: Baseline | None = None,
    progress: ProgressFn | None = None,
) -> SourceSet:
    """The sources of ``engine``/``backend`` at their pins, after the license check for ``board``.

    ``source_path`` replaces the engine's primary repository with a local checkout.
    """
    base = baseline or load_baseline()
    if board is not None:
        check_may_run(engine, backend, board, known_boards, base)
    given = dict(overrides or {})
    if source_path is not None:
        given[base.engine(engine).primary] = source_path
    return materialize_pins(
        base.pins_for(engine, backend),
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
    baseline: Baseline | None = None,
    progress: ProgressFn | None = None,
) -> SourceSet:
    """The board support sources of a board family (e.g. ``apollo``) at their pins."""
    base = baseline or load_baseline()
    return materialize_pins(
        base.pins_for_board(family), offline=offline, cache=cache, progress=progress
    )
