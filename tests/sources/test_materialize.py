"""Materialization against real local repositories reached through ``insteadOf`` rules."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
import time
from pathlib import Path

import attrs
import git
import pytest
from gitrepos import Upstream, commit_file
from gitrepos import git as run_git

from hpx_core.errors import SourceError
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.checkout import inspect
from hpx_core.sources.materialize import materialize_pin, materialize_pins
from hpx_core.sources.pins import RepoPin

# The package re-exports the function `materialize`, which hides the module of the same name.
mat = importlib.import_module("hpx_core.sources.materialize")
sync = importlib.import_module("hpx_core.sources.sync")


def head(path: Path) -> str:
    return run_git(path, "rev-parse", "HEAD")


def missing_objects(path: Path) -> list[str]:
    listing = run_git(path, "rev-list", "--objects", "--all", "--missing=print")
    return [line for line in listing.splitlines() if line.startswith("?")]


def is_detached(path: Path) -> bool:
    return run_git(path, "rev-parse", "--abbrev-ref", "HEAD") == "HEAD"


def test_checks_out_the_exact_commit_detached(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    done = materialize_pin(upstream.pin(upstream.c1, submodules=False), store)
    path = store.checkout("app")
    assert missing_objects(path)  # a partial clone: other commits' files were not fetched
    assert done.repos[0].path == path
    assert head(path) == upstream.c1
    assert is_detached(path)
    assert (path / "app.txt").read_text() == "app 1\n"
    assert run_git(path, "config", "remote.origin.url") == upstream.url("app")
    # The pin moves: the same folder follows it.
    materialize_pin(upstream.pin(upstream.c3), store)
    assert head(path) == upstream.c3
    assert (path / "app.txt").read_text() == "app 3\n"


def test_submodules_at_recorded_commits_and_only_the_named_ones(
    upstream: Upstream, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    done = materialize_pin(upstream.pin(), store)
    root = store.checkout("app")
    assert head(root / "external/lib") == upstream.lib_commit
    assert head(root / "external/lib/third/leaf") == upstream.leaf_commit
    # The leaf repository's newest commit says "leaf 2"; the recorded one says "leaf 1".
    assert (root / "external/lib/third/leaf/leaf.txt").read_text() == "leaf 1\n"
    assert list((root / "external/unused").iterdir()) == []
    assert [(r.name, r.commit) for r in done.repos] == [
        ("app", upstream.c3),
        ("lib", upstream.lib_commit),
        ("leaf", upstream.leaf_commit),
    ]
    assert inspect(root, upstream.pin()).state == "at pin"


def test_force_sync_discards_edits_and_untracked_files(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin()
    materialize_pin(pin, store)
    root = store.checkout("app")
    (root / "app.txt").write_text("local edit\n")
    (root / "stray.c").write_text("int x;\n")
    (root / "build.o").write_text("ignored\n")
    (root / "external/lib/lib.txt").write_text("edited in a submodule\n")
    (root / "external/lib/third/leaf/new.txt").write_text("untracked in a nested one\n")
    commit_file(root / "external/lib/third/leaf", "leaf.txt", "moved\n", "local commit")
    assert inspect(root, pin).state == "wrong commit"
    materialize_pin(pin, store)
    assert (root / "app.txt").read_text() == "app 3\n"
    assert not (root / "stray.c").exists()
    assert not (root / "build.o").exists()
    assert (root / "external/lib/lib.txt").read_text() == "lib 1\n"
    assert not (root / "external/lib/third/leaf/new.txt").exists()
    assert head(root / "external/lib/third/leaf") == upstream.leaf_commit
    assert inspect(root, pin).state == "at pin"


def test_offline_uses_the_cache_only_and_verifies_it(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin()
    with pytest.raises(SourceError, match="missing"):
        materialize_pin(pin, store, offline=True)
    materialize_pin(pin, store)
    # Without the mirror rules nothing can be fetched: offline still works from the cache.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "none"))
    assert materialize_pin(pin, store, offline=True).repos[0].commit == upstream.c3
    (store.checkout("app") / "external/lib/lib.txt").write_text("edited\n")
    with pytest.raises(SourceError, match="dirty") as caught:
        materialize_pin(pin, store, offline=True)
    assert "external/lib" in caught.value.message
    # Offline verification does not repair: the edit is still there.
    assert (store.checkout("app") / "external/lib/lib.txt").read_text() == "edited\n"
    with pytest.raises(SourceError, match="wrong commit"):
        materialize_pin(upstream.pin(upstream.c2), store, offline=True)


def test_unreachable_commit_names_url_commit_and_mirror_hint(
    upstream: Upstream, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin(upstream.lost, submodules=False)
    with pytest.raises(SourceError) as caught:
        materialize_pin(pin, store)
    error = caught.value
    assert upstream.lost in error.message
    assert upstream.url("app") in error.message
    assert "insteadOf" in error.hint and upstream.url("app") in error.hint
    assert not store.checkout("app").exists()
    assert list(store.sources.iterdir()) == []


def test_unknown_host_without_a_mirror_rule_is_a_source_error(tmp_path: Path) -> None:
    pin = attrs.evolve(
        Upstream.pin(attrs.evolve(_dummy(), root=tmp_path), submodules=False),
        url="https://example.invalid/nowhere/app",
    )
    with pytest.raises(SourceError, match=r"cannot clone https://example\.invalid/nowhere/app"):
        materialize_pin(pin, SourceCache(tmp_path / "cache"))


def _dummy() -> Upstream:
    sha = "0" * 40
    return Upstream(Path(), Path(), sha, sha, sha, sha, sha, sha, sha, sha, Path(), sha, sha)


def test_required_submodule_unreachable_is_refused(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    with pytest.raises(SourceError) as caught:
        materialize_pin(upstream.pin_with_opt(required=True), store)
    assert upstream.opt_commit in caught.value.message
    assert "insteadOf" in caught.value.hint
    assert not store.checkout("app").exists()


def test_optional_submodule_unreachable_is_recorded_as_absent(
    upstream: Upstream, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin_with_opt(required=False)
    done = materialize_pin(pin, store)
    assert done.absent_optional == ("external/opt",)
    assert "opt" not in [r.name for r in done.repos]
    sources = materialize_pins([pin], cache=store)
    assert sources.provenance == "development-overrides"


def test_baseline_commit_must_match_the_recorded_submodule(
    upstream: Upstream, tmp_path: Path
) -> None:
    pin = upstream.pin()
    wrong = attrs.evolve(pin.submodules[0], commit=upstream.leaf_commit)
    with pytest.raises(SourceError, match="records submodule external/lib"):
        materialize_pin(attrs.evolve(pin, submodules=(wrong,)), SourceCache(tmp_path / "c"))


def test_pinned_default_is_qualified(upstream: Upstream, tmp_path: Path) -> None:
    sources = materialize_pins([upstream.pin()], cache=SourceCache(tmp_path / "cache"))
    assert sources.provenance == "qualified"
    assert sources.path_of("leaf") == tmp_path / "cache/sources/app/external/lib/third/leaf"


def test_failure_after_clone_leaves_no_cache_folder(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SourceCache(tmp_path / "cache")

    def broken(path: Path, commit: str) -> None:
        raise git.GitCommandError(["git", "checkout"], 128, b"fatal: injected failure")

    monkeypatch.setattr(sync, "_checkout", broken)
    with pytest.raises(SourceError, match="injected failure"):
        materialize_pin(upstream.pin(), store)
    assert list(store.sources.iterdir()) == []


def _kill_self_while_cloning(cache_root: str, pin_fields: dict[str, object]) -> None:
    pin = mat.RepoPin(**pin_fields)  # type: ignore[arg-type]

    def progress(name: str, phase: str, fraction: float | None) -> None:
        if phase.startswith("submodule"):
            os.kill(os.getpid(), signal.SIGKILL)

    materialize_pin(pin, SourceCache(Path(cache_root)), progress=progress)


def test_killed_process_mid_clone_leaves_no_cache_folder(
    upstream: Upstream, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin()
    fields = attrs.asdict(pin, recurse=False)
    child = multiprocessing.get_context("fork").Process(
        target=_kill_self_while_cloning, args=(str(store.root), fields)
    )
    child.start()
    child.join(60)
    assert child.exitcode == -signal.SIGKILL
    assert not store.checkout("app").exists()
    leftovers = [p.name for p in store.sources.iterdir()]
    assert len(leftovers) == 1 and leftovers[0].startswith(".app.tmp-")  # the killed clone
    materialize_pin(pin, store)
    assert [p.name for p in store.sources.iterdir()] == ["app"]
    assert inspect(store.checkout("app"), pin).state == "at pin"


def _materialize_logged(cache_root: str, pin_fields: dict[str, object], log: str) -> None:
    pin = mat.RepoPin(**pin_fields)  # type: ignore[arg-type]
    me = str(os.getpid())

    def progress(name: str, phase: str, fraction: float | None) -> None:
        if phase == "locked":
            with Path(log).open("a") as out:
                out.write(f"{me} start {time.monotonic()}\n")
            time.sleep(1.0)
        elif phase == "done":
            with Path(log).open("a") as out:
                out.write(f"{me} end {time.monotonic()}\n")

    materialize_pin(pin, SourceCache(Path(cache_root)), progress=progress)


def test_two_processes_are_serialized_by_the_lock(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin()
    log = tmp_path / "log"
    fields = attrs.asdict(pin, recurse=False)
    ctx = multiprocessing.get_context("fork")
    procs = [
        ctx.Process(target=_materialize_logged, args=(str(store.root), fields, str(log)))
        for _ in range(2)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
        assert proc.exitcode == 0
    events = [line.split() for line in log.read_text().splitlines()]
    assert sorted((e[0], e[1]) for e in events) == sorted(
        (str(p.pid), what) for p in procs for what in ("start", "end"))
    # each holds the lock a second before it clones; "done" is reported once the lock is let
    # go, so the second may log its start before the first logs its end, but never sooner
    # than the first's second under the lock
    first, second = sorted(float(e[2]) for e in events if e[1] == "start")
    assert second - first >= 1.0
    assert float(events[2][2]) >= float(events[1][2])
    assert [p.name for p in store.sources.iterdir()] == ["app"]
    assert inspect(store.checkout("app"), pin).state == "at pin"


def test_a_held_lock_blocks_materialization(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin(submodules=False)
    fields = attrs.asdict(pin, recurse=False)
    child = multiprocessing.get_context("fork").Process(
        target=_materialize_logged, args=(str(store.root), fields, str(tmp_path / "log"))
    )
    with store.lock("app"):
        child.start()
        time.sleep(3.0)
        assert child.is_alive()
        assert not (tmp_path / "log").exists()
        assert not store.sources.exists() or list(store.sources.iterdir()) == []
    child.join(60)
    assert child.exitcode == 0
    assert head(store.checkout("app")) == upstream.c3


def test_excluded_paths_are_never_fetched(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    with pytest.raises(SourceError, match="external/heavy"):
        materialize_pin(upstream.pin_with_heavy(exclude=()), store)
    assert list(store.sources.iterdir()) == []
    pin = upstream.pin_with_heavy(exclude=("/assets/",))
    materialize_pin(pin, store)
    heavy = store.checkout("app") / "external/heavy"
    assert (heavy / "keep.txt").read_text() == "kept\n"
    assert not (heavy / "assets").exists()
    assert head(heavy) == upstream.heavy_commit
    assert inspect(store.checkout("app"), pin).state == "at pin"
    (heavy / "keep.txt").write_text("edited\n")
    materialize_pin(pin, store)
    assert (heavy / "keep.txt").read_text() == "kept\n"
    assert materialize_pin(pin, store, offline=True).repos[-1].name == "heavy"


def test_servers_without_partial_clone_send_everything(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "gitconfig"
    plain.write_text(upstream.gitconfig.read_text().split("[uploadpack]")[0])
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(plain))
    store = SourceCache(tmp_path / "cache")
    materialize_pin(upstream.pin(), store)
    root = store.checkout("app")
    assert missing_objects(root) == []
    assert inspect(root, upstream.pin()).state == "at pin"


def test_exclusions_of_the_root_follow_the_pin(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    plain = upstream.pin(submodules=False)
    sparse = attrs.evolve(plain, exclude=("/.gitignore",))
    materialize_pin(sparse, store)
    root = store.checkout("app")
    assert not (root / ".gitignore").exists() and (root / "app.txt").exists()
    assert inspect(root, sparse).state == "at pin"
    state = inspect(root, plain)
    assert state.state == "dirty" and ".gitignore" in state.detail
    with pytest.raises(SourceError, match="dirty"):
        materialize_pin(plain, store, offline=True)
    materialize_pin(plain, store)
    assert (root / ".gitignore").exists()
    assert inspect(root, plain).state == "at pin"


def test_unpinned_submodules_are_dirty_and_deinitialized(
    upstream: Upstream, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin()
    materialize_pin(pin, store)
    root = store.checkout("app")
    run_git(root, "submodule", "update", "-q", "--init", "--", "external/unused")
    assert (root / "external/unused/unused.txt").exists()
    state = inspect(root, pin)
    assert state.state == "dirty" and "external/unused" in state.detail
    materialize_pin(pin, store)
    assert list((root / "external/unused").iterdir()) == []
    assert inspect(root, pin).state == "at pin"


def test_a_cache_at_the_pin_is_used_without_syncing(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin()
    materialize_pin(pin, store)

    def no_sync(*args: object) -> list[str]:
        raise AssertionError("a clean checkout at its pin was synced again")

    monkeypatch.setattr(sync, "force_sync", no_sync)  # imported when a sync is due
    assert materialize_pin(pin, store).repos[0].commit == upstream.c3
    (store.checkout("app") / "stray.txt").write_text("x\n")
    with pytest.raises(AssertionError, match="synced again"):
        materialize_pin(pin, store)


def test_a_remote_missing_objects_needs_partial_clones(
    upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin = RepoPin(
        "heavy", upstream.url("heavy"), upstream.heavy_commit, "MIT", "any", exclude=("/assets/",)
    )
    plain = tmp_path / "gitconfig"
    plain.write_text(upstream.gitconfig.read_text().split("[uploadpack]")[0])
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(plain))
    with pytest.raises(SourceError, match="cannot clone") as caught:
        materialize_pin(pin, SourceCache(tmp_path / "plain"))
    assert "uploadpack.allowFilter" in caught.value.hint
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(upstream.gitconfig))
    done = materialize_pin(pin, SourceCache(tmp_path / "partial"))
    assert (done.repos[0].path / "keep.txt").exists()
    assert not (done.repos[0].path / "assets").exists()
