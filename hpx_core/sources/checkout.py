"""Read-only questions about a git checkout: is it exactly at its pin, and clean?

Both the cache (``hpx sources list``, ``--offline``) and ``source_path`` overrides ask the same
questions, so the answer is computed in one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import attrs

from hpx_core.sources.pins import RepoPin, SubmodulePin

if TYPE_CHECKING:
    import git  # imported by the functions that run git: a warm run asks git nothing

State = Literal["missing", "at pin", "dirty", "wrong commit", "invalid"]
NO_PROMPT = {"GIT_TERMINAL_PROMPT": "0"}
"""git must fail, not wait for a password, when a URL needs credentials hpx does not have."""


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def git_at(path: Path, *, allow_file_protocol: bool = False) -> git.Git:
    """A git command runner in ``path``.

    ``allow_file_protocol`` lets submodules clone from local paths and ``file://`` mirrors,
    which git refuses by default for submodules since 2.38.1.
    """
    import git

    runner = git.Git(str(path))
    runner.update_environment(**NO_PROMPT)
    if allow_file_protocol:
        runner.set_persistent_git_options(c="protocol.file.allow=always")
    return runner


@attrs.frozen
class CheckoutState:
    """What a folder holds compared with its pin; ``detail`` says why when not at pin."""

    state: State
    head: str | None = None
    detail: str = ""
    absent_optional: tuple[str, ...] = attrs.field(default=(), converter=_strs)


def head_of(path: Path) -> str | None:
    """The commit checked out in ``path``, or None when it is not a usable git checkout."""
    import git

    if not (path / ".git").exists():
        return None
    try:
        return str(git_at(path).rev_parse("--verify", "HEAD^{commit}")).strip()
    except git.GitCommandError:
        return None


def toplevel_of(path: Path) -> Path | None:
    import git

    try:
        return Path(str(git_at(path).rev_parse("--show-toplevel")).strip()).resolve()
    except (git.GitCommandError, OSError):
        return None


def gitlink(parent: Path, rel: str) -> str | None:
    """The commit a superproject records for its submodule at ``rel``."""
    out = str(git_at(parent).ls_tree("HEAD", "--", rel)).strip()
    if not out:
        return None
    meta, _, _ = out.partition("\t")
    mode, kind, sha = meta.split()
    return sha if kind == "commit" and mode == "160000" else None


def dirt(path: Path) -> str:
    """The first changed, untracked or ignored paths in ``path`` (empty when clean)."""
    out = str(
        git_at(path).status(
            "--porcelain=v1",
            "--ignored=matching",
            "--untracked-files=all",
            "--ignore-submodules=all",
        )
    )
    lines = [line for line in out.splitlines() if line.strip()]
    shown = "; ".join(lines[:3]) + ("; ..." if len(lines) > 3 else "")
    return shown


def origin_of(path: Path) -> str | None:
    import git

    try:
        return str(git_at(path).config("--get", "remote.origin.url")).strip()
    except git.GitCommandError:
        return None


def _submodule_state(root: Path, pin: RepoPin, sub: SubmodulePin) -> tuple[State | None, str]:
    parent, rel = split_submodule(root, pin, sub)
    recorded = gitlink(parent, rel)
    head = head_of(root / sub.path)
    if head is None:
        if not sub.required:
            return None, "absent"
        return "wrong commit", f"submodule {sub.path} is not initialized"
    if head != recorded:
        return "wrong commit", f"submodule {sub.path} is at {head[:12]}, recorded {recorded}"
    problem = dirt(root / sub.path) or _exclusion_drift(root / sub.path, sub.exclude)
    if problem:
        return "dirty", f"submodule {sub.path}: {problem}"
    return None, ""


def submodule_state(root: Path, pin: RepoPin, sub: SubmodulePin) -> str:
    """One submodule of a checkout: ``at pin``, ``absent`` (optional, not there), ``missing``
    (its superproject is not checked out), ``wrong commit`` or ``dirty``."""
    parent, _ = split_submodule(root, pin, sub)
    if head_of(root) is None or head_of(parent) is None:
        return "missing"
    state, detail = _submodule_state(root, pin, sub)
    if detail == "absent":
        return "absent"
    return state or "at pin"


def exclusions_of(path: Path) -> tuple[str, ...]:
    """The paths a sparse checkout leaves out (the ``!/...`` patterns), empty when not sparse."""
    import git

    runner = git_at(path)
    try:
        if str(runner.config("--get", "core.sparseCheckout")).strip() != "true":
            return ()
    except git.GitCommandError:
        return ()
    patterns = str(runner.sparse_checkout("list")).splitlines()
    return tuple(p[1:] for p in patterns if p.startswith("!"))


def initialized_submodules(path: Path) -> list[str]:
    """Paths (relative to ``path``) of its submodules that are checked out."""
    if not (path / ".gitmodules").is_file():
        return []  # git knows no submodule path without it; skips a slow `git submodule`
    out = str(git_at(path).submodule("status"))
    return [line[1:].split()[1] for line in out.splitlines() if line and line[0] != "-"]


def unlisted_submodules(root: Path, pin: RepoPin, missing: Iterable[str] = ()) -> list[str]:
    """Initialized submodules the pin does not name (full paths from ``root``)."""
    wanted = {s.path for s in pin.submodules if s.path not in set(missing)}
    extra: list[str] = []
    for level in ["", *sorted(w for w in wanted if head_of(root / w))]:
        base = root / level if level else root
        for rel in initialized_submodules(base):
            full = f"{level}/{rel}" if level else rel
            if full not in wanted:
                extra.append(full)
    return extra


def _exclusion_drift(path: Path, exclude: tuple[str, ...]) -> str:
    found = exclusions_of(path)
    return "" if found == exclude else f"leaves out {list(found)}, the pin {list(exclude)}"


def split_submodule(root: Path, pin: RepoPin, sub: SubmodulePin) -> tuple[Path, str]:
    """The repository owning ``sub`` (deepest listed parent, or the root), and its path there."""
    parents = [s.path for s in pin.submodules if sub.path.startswith(s.path + "/")]
    if not parents:
        return root, sub.path
    parent = max(parents, key=len)
    return root / parent, sub.path[len(parent) + 1 :]


def inspect(
    path: Path, pin: RepoPin, *, check_origin: bool = True, extra_submodules: bool = False
) -> CheckoutState:
    """Compare ``path`` with ``pin`` without changing anything.

    ``extra_submodules`` tolerates initialized submodules the pin does not name (a user's own
    recursive checkout); the cache holds only the named ones.
    """
    if not path.exists():
        return CheckoutState("missing")
    head = head_of(path)
    # a .git folder (not a submodule's .git file) marks a repository's root without asking git
    top = path.resolve() if (path / ".git").is_dir() else toplevel_of(path) if head else None
    if head is None or top != path.resolve():
        return CheckoutState("invalid", detail=f"{path} is not the root of a git checkout")
    if check_origin:
        origin = origin_of(path)
        if origin != pin.url:
            return CheckoutState("invalid", head, f"a clone of {origin}, not {pin.url}")
    if head != pin.commit:
        return CheckoutState("wrong commit", head, f"at {head[:12]}, pinned {pin.commit[:12]}")
    absent: list[str] = []
    found: dict[State, str] = {}
    for sub in pin.submodules:
        state, detail = _submodule_state(path, pin, sub)
        if detail == "absent":
            absent.append(sub.path)
        elif state is not None:
            found.setdefault(state, detail)
    extra = [] if extra_submodules else unlisted_submodules(path, pin)
    problem = dirt(path) or _exclusion_drift(path, pin.exclude)
    if extra:
        problem = problem or f"submodule {extra[0]} is initialized but not pinned"
    if problem:
        found.setdefault("dirty", problem)
    for state in ("wrong commit", "dirty"):
        if state in found:
            return CheckoutState(state, head, found[state])
    return CheckoutState("at pin", head, absent_optional=absent)
