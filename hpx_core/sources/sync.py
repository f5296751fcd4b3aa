"""Force-sync one git checkout to its pin: the git side of materialization.

Clones are partial (``--filter=blob:none``): history comes without file contents, and only the
files of the pinned tree are fetched, which keeps large repositories small. A pin may
``exclude`` paths (sparse checkout), whose contents are then never fetched. A server that does
not offer filtering simply sends everything (git says so; a failure then says whether the
server lacked an object). A failure names what was asked and what the server answered.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import git

from hpx_core.errors import SourceError
from hpx_core.log import get_logger
from hpx_core.sources.checkout import (
    NO_PROMPT,
    git_at,
    gitlink,
    head_of,
    split_submodule,
    unlisted_submodules,
)
from hpx_core.sources.gitfailure import (
    INCOMPLETE_MIRROR_HINT,
    failure_error,
    git_said,
    mirror_hint,
    read_failure,
)
from hpx_core.sources.pins import RepoPin, SubmodulePin

log = get_logger()

ProgressFn = Callable[[str, str, float | None], None]
"""Called with (repository name, phase, fraction done or None)."""

BLOBLESS = "--filter=blob:none"


@cache
def _submodule_filter() -> tuple[str, ...]:
    """``git submodule update --filter`` exists from git 2.36 on."""
    version = git.Git().version_info
    return (BLOBLESS,) if tuple(version[:2]) >= (2, 36) else ()


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
    """Fetch ``commit`` into ``path`` unless present; refuse with what the server said."""
    runner = git_at(path)
    if _has_commit(runner, commit):
        return
    asked = f"fetch commit {commit} from {url}"
    failure = None
    for args in (("origin",), ("origin", commit)):
        try:
            runner.fetch("--tags", "--force", *args)
        except git.GitCommandError as exc:
            failure = read_failure(exc)
            if failure.final:
                raise failure_error(asked, url, failure, folder=path.parent) from exc
        if _has_commit(runner, commit):
            return
    if failure is not None:
        raise failure_error(asked, url, failure, folder=path.parent)
    raise SourceError(f"commit {commit} is not reachable from {url}", mirror_hint(url))


def _clone_into(url: str, dest: Path, watcher: _CloneProgress | None = None) -> None:
    """A partial clone; a failure carries every line git said (the progress handler eats them)."""
    listener = watcher or _CloneProgress(url, lambda _name, _phase, _fraction: None)
    try:
        git.Repo.clone_from(
            url,
            str(dest),
            no_checkout=True,
            multi_options=[BLOBLESS],
            progress=listener,  # type: ignore[arg-type]
            env={**os.environ, **NO_PROMPT},
        )
    except git.GitCommandError as exc:
        said = [*listener.other_lines, *listener.error_lines, git_said(exc)]
        raise git.GitCommandError(exc.command, exc.status, "\n".join(said)) from exc


def clone(pin: RepoPin, dest: Path, report: ProgressFn) -> None:
    """Clone ``pin``'s repository into the empty folder ``dest`` without checking out."""
    try:
        _clone_into(pin.url, dest, _CloneProgress(pin.name, report))
    except git.GitCommandError as exc:
        asked = f"clone {pin.url} (a partial clone, {BLOBLESS})"
        raise failure_error(asked, pin.url, read_failure(exc), folder=dest.parent) from exc


def apply_exclude(path: Path, exclude: Sequence[str]) -> None:
    """Leave ``exclude`` out of the work tree (sparse checkout), or include everything."""
    runner = git_at(path)
    if exclude:
        runner.sparse_checkout("set", "--no-cone", "/*", *(f"!{p}" for p in exclude))
        return
    try:
        sparse = str(runner.config("--get", "core.sparseCheckout")).strip() == "true"
    except git.GitCommandError:
        sparse = False
    if sparse:
        runner.sparse_checkout("disable")


def _checkout(path: Path, commit: str) -> None:
    runner = git_at(path)
    runner.checkout("--force", "--detach", commit)
    runner.reset("--hard", commit)
    runner.clean("-ffdx")


def _submodule_name(parent: Path, rel: str) -> str:
    out = str(git_at(parent).config("-f", ".gitmodules", "--get-regexp", r"^submodule\..*\.path$"))
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        if value == rel:
            return key.removeprefix("submodule.").removesuffix(".path")
    raise SourceError(f"{parent} has no submodule at {rel} in its .gitmodules")


def _clone_sparse_submodule(parent: Path, rel: str, sub: SubmodulePin) -> None:
    """First checkout of a submodule with exclusions: sparse before any file is fetched."""
    runner = git_at(parent)
    runner.submodule("init", "--", rel)
    url = str(runner.config("--get", f"submodule.{_submodule_name(parent, rel)}.url")).strip()
    _clone_into(url, parent / rel)
    apply_exclude(parent / rel, sub.exclude)
    git_at(parent / rel).checkout("--detach", sub.commit)
    runner.submodule("absorbgitdirs", "--", rel)


def _sync_submodule(root: Path, pin: RepoPin, sub: SubmodulePin) -> bool:
    """Initialize ``sub`` at its recorded commit; False when optional and unreachable."""
    parent, rel = split_submodule(root, pin, sub)
    recorded = gitlink(parent, rel)
    if recorded != sub.commit:
        raise SourceError(
            f"{pin.name}@{pin.commit[:12]} records submodule {sub.path} at {recorded}, "
            f"the pin says {sub.commit}",
            "the pins are inconsistent: pin the superproject's recorded commit",
        )
    try:
        if sub.exclude and head_of(root / sub.path) is None:
            _clone_sparse_submodule(parent, rel, sub)
        updater = git_at(parent, allow_file_protocol=True)
        updater.submodule("update", "--init", "--force", *_submodule_filter(), "--", rel)
    except git.GitCommandError as exc:
        failure = read_failure(exc)
        if sub.required or failure.final:
            context = f"submodule {sub.path} of {pin.name}"
            asked = f"fetch commit {sub.commit} from {sub.url}"
            raise failure_error(asked, sub.url, failure, folder=root.parent,
                                context=context) from exc
        log.warning(
            "optional submodule not materialized",
            repo=pin.name,
            path=sub.path,
            commit=sub.commit,
            reason=failure.answer(),
        )
        git_at(parent).submodule("deinit", "--force", "--", rel)
        return False
    apply_exclude(root / sub.path, sub.exclude)
    runner = git_at(root / sub.path)
    runner.reset("--hard", sub.commit)
    runner.clean("-ffdx")
    return True


def _deinit_unlisted(root: Path, pin: RepoPin, missing: list[str]) -> None:
    """Only the named submodules stay initialized (a pin may drop one)."""
    for full in unlisted_submodules(root, pin, missing):
        owners = [s.path for s in pin.submodules if full.startswith(s.path + "/")]
        base = max(owners, key=len) if owners else ""
        rel = full[len(base) + 1 :] if base else full
        git_at(root / base if base else root).submodule("deinit", "--force", "--", rel)


def force_sync(path: Path, pin: RepoPin, report: ProgressFn) -> list[str]:
    """Make ``path`` exactly ``pin``: detached at the commit, clean, the named submodules at
    their recorded commits. Returns the optional submodules that could not be had."""
    report(pin.name, "fetching", None)
    _ensure_commit(path, pin.url, pin.commit)
    report(pin.name, "checking out", None)
    try:
        apply_exclude(path, pin.exclude)
        _checkout(path, pin.commit)
    except git.GitCommandError as exc:
        failure = read_failure(exc)
        if failure.final:
            asked = f"check out {pin.name} at {pin.commit} (its files come from {pin.url})"
            raise failure_error(asked, pin.url, failure, folder=path.parent) from exc
        if any("promisor remote" in line for line in failure.lines):
            raise SourceError(
                f"{pin.url} does not serve every file of {pin.commit}: {failure.answer()}",
                INCOMPLETE_MIRROR_HINT,
            ) from exc
        raise SourceError(
            f"cannot check out {pin.name} at {pin.commit}: {failure.answer()}",
            f"run `hpx cache clean {pin.name}` and retry",
        ) from exc
    missing: list[str] = []
    for sub in pin.submodules:
        report(pin.name, f"submodule {sub.path}", None)
        if not _sync_submodule(path, pin, sub):
            missing.append(sub.path)
    _deinit_unlisted(path, pin, missing)
    return missing
