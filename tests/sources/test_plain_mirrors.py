"""Materialization against plain mirrors: ``git clone --mirror`` copies reached through
``insteadOf`` rules only, whose serving side refuses partial clones (``uploadpack.allowFilter``
false), as a team's mirror made by the README's recipe is."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepos import HOST, Upstream, commit_file, new_repo
from gitrepos import git as run_git

from hpx_core.errors import SourceError
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.checkout import inspect
from hpx_core.sources.materialize import materialize_pin
from hpx_core.sources.pins import RepoPin, SubmodulePin

UPSTREAM_NAMES = ("app", "lib", "leaf", "unused", "opt", "heavy")


def serve_plain_mirrors(
    sources: dict[str, Path], into: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Mirror each repository with ``git clone --mirror`` and point the git config at them."""
    into.mkdir()
    rules = []
    for name, source in sources.items():
        run_git(into, "clone", "-q", "--mirror", str(source), f"{name}.git")
        rules.append(f'[url "file://{into}/{name}.git"]\n\tinsteadOf = {HOST}/{name}\n')
    config = into / "plain.gitconfig"
    config.write_text("".join(rules) + "[uploadpack]\n\tallowFilter = false\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    return config


def objects_missing(path: Path) -> list[str]:
    listing = run_git(path, "rev-list", "--objects", "--all", "--missing=print")
    return [line for line in listing.splitlines() if line.startswith("?")]


@pytest.fixture
def plain(upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    sources = {name: upstream.root / name for name in UPSTREAM_NAMES}
    return serve_plain_mirrors(sources, tmp_path / "mirrors", monkeypatch)


def test_the_mirrors_refuse_partial_clones(plain: Path, tmp_path: Path) -> None:
    clone = tmp_path / "probe"
    out = run_git(tmp_path, "clone", "--filter=blob:none", f"{HOST}/app", str(clone))
    assert objects_missing(clone) == [], out  # the server sent every object: no filtering


def test_nested_submodules_from_plain_mirrors(
    upstream: Upstream, plain: Path, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin()
    done = materialize_pin(pin, store)
    root = store.checkout("app")
    assert inspect(root, pin).state == "at pin"
    commits = [upstream.c3, upstream.lib_commit, upstream.leaf_commit]
    assert [r.commit for r in done.repos] == commits
    assert (root / "external/lib/third/leaf/leaf.txt").read_text() == "leaf 1\n"
    assert objects_missing(root) == []


def test_a_plain_mirror_lacking_an_excluded_file_names_the_object_and_the_answer(
    upstream: Upstream, plain: Path, tmp_path: Path
) -> None:
    """The mirror lacks a file only an excluded path holds; without filtering it cannot send the
    history, and the error must say which object and what the server answered."""
    lost = run_git(upstream.root / "heavy", "rev-parse", "HEAD:assets/big.bin")
    store = SourceCache(tmp_path / "cache")
    with pytest.raises(SourceError) as caught:
        materialize_pin(upstream.pin_with_heavy(exclude=("/assets/",)), store)
    error = caught.value
    asked = f"cannot fetch commit {upstream.heavy_commit} from {upstream.url('heavy')}"
    assert error.message.startswith(f"submodule external/heavy of app: {asked}")
    assert f"the server lacks object {lost}" in error.message
    assert f"unable to read {lost}" in error.message  # the server's own words
    assert error.message.isprintable()  # git ends that answer with a NUL; a report cannot
    assert "the server does not filter" in error.message
    assert "uploadpack.allowFilter" in error.hint
    assert list(store.sources.iterdir()) == []


def _pr_only_repositories(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """A superproject ``host`` whose submodule ``pr`` is recorded at a commit that only a pull
    request ref (``refs/pull/1/head``) holds, as upstream merges often pin; a mirror carries such
    refs, a plain clone does not fetch them."""
    config = root / "build.gitconfig"
    rules = (f'[url "file://{root}/{n}"]\n\tinsteadOf = {HOST}/{n}\n' for n in ("pr", "host"))
    config.write_text("".join(rules))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    pr = new_repo(root, "pr")
    commit_file(pr, "kept.txt", "main\n", "main")
    run_git(pr, "checkout", "-q", "-b", "topic")
    commit_file(pr, "examples/big.gif", "GIF89a" * 100, "a large example")
    proposed = commit_file(pr, "kept.txt", "proposed\n", "proposed")
    run_git(pr, "update-ref", "refs/pull/1/head", proposed)
    run_git(pr, "checkout", "-q", "main")
    run_git(pr, "branch", "-q", "-D", "topic")
    host = new_repo(root, "host")
    commit_file(host, "host.txt", "host\n", "host")
    run_git(host, "submodule", "add", "-q", f"{HOST}/pr", "external/pr")
    run_git(host / "external/pr", "fetch", "-q", "origin", "refs/pull/1/head")
    run_git(host / "external/pr", "checkout", "-q", proposed)
    run_git(host, "add", "external/pr")
    run_git(host, "commit", "-q", "-m", "pr at its proposal")
    return run_git(host, "rev-parse", "HEAD"), proposed


def test_a_sparse_submodule_at_a_pull_request_commit_from_plain_mirrors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = tmp_path / "upstream"
    built.mkdir()
    host_commit, proposed = _pr_only_repositories(built, monkeypatch)
    sources = {name: built / name for name in ("pr", "host")}
    serve_plain_mirrors(sources, tmp_path / "mirrors", monkeypatch)
    sub = SubmodulePin("external/pr", "pr", f"{HOST}/pr", proposed, "MIT", exclude=("/examples/",))
    pin = RepoPin("host", f"{HOST}/host", host_commit, "MIT", "any", submodules=(sub,))
    store = SourceCache(tmp_path / "cache")
    done = materialize_pin(pin, store)
    checkout = store.checkout("host") / "external/pr"
    assert done.repos[1].commit == proposed
    assert (checkout / "kept.txt").read_text() == "proposed\n"
    assert not (checkout / "examples").exists()
    assert inspect(store.checkout("host"), pin).state == "at pin"


def test_optional_submodule_missing_from_a_plain_mirror_is_absent(
    upstream: Upstream, plain: Path, tmp_path: Path
) -> None:
    done = materialize_pin(upstream.pin_with_opt(required=False), SourceCache(tmp_path / "c"))
    assert done.absent_optional == ("external/opt",)
    with pytest.raises(SourceError, match=upstream.opt_commit) as caught:
        materialize_pin(upstream.pin_with_opt(required=True), SourceCache(tmp_path / "d"))
    assert caught.value.message.endswith(
        f"the server answered: upload-pack: not our ref {upstream.opt_commit}"
    )
