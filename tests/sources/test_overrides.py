"""A ``source_path`` override is verified and stamped; the pinned default stays qualified."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest
from gitrepos import Upstream
from gitrepos import git as run_git

from hpx_core.errors import SourceError
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.materialize import materialize_pin, materialize_pins
from hpx_core.sources.overrides import use_override


@pytest.fixture
def checkout(upstream: Upstream, tmp_path: Path) -> Path:
    """A user's own checkout at the pin, with submodules, made by plain git."""
    path = tmp_path / "mine"
    run_git(tmp_path, "clone", "-q", upstream.url("app"), str(path))
    run_git(path, "checkout", "-q", "--detach", upstream.c3)
    run_git(path, "submodule", "update", "-q", "--init", "--", "external/lib")
    run_git(path / "external/lib", "submodule", "update", "-q", "--init", "--", "third/leaf")
    return path


def test_override_at_the_pin_is_qualified_with_engine_override(
    upstream: Upstream, checkout: Path, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    sources = materialize_pins([upstream.pin()], overrides={"app": checkout}, cache=store)
    assert sources.provenance == "qualified-with-engine-override"
    assert sources.path_of("app") == checkout.resolve()
    assert [r.commit for r in sources.repos] == [
        upstream.c3,
        upstream.lib_commit,
        upstream.leaf_commit,
    ]
    assert not store.root.exists()  # nothing fetched for an override
    assert materialize_pins([upstream.pin()], cache=store).provenance == "qualified"


def test_override_at_another_commit_needs_explicit_permission(
    upstream: Upstream, checkout: Path
) -> None:
    run_git(checkout, "checkout", "-q", "--detach", upstream.c2)
    with pytest.raises(SourceError, match="not at the pin") as caught:
        use_override(upstream.pin(), checkout)
    assert upstream.c3 in caught.value.hint
    records, stamp = use_override(upstream.pin(), checkout, allow_unpinned=True)
    assert stamp == "development-overrides"
    assert records[0].commit == upstream.c2  # the commit actually built from
    # hpx never modifies an override
    assert run_git(checkout, "rev-parse", "HEAD") == upstream.c2


def test_dirty_override_and_missing_submodule_are_not_qualified(
    upstream: Upstream, checkout: Path
) -> None:
    (checkout / "app.txt").write_text("edited\n")
    with pytest.raises(SourceError, match="dirty"):
        use_override(upstream.pin(), checkout)
    run_git(checkout, "checkout", "-q", "--", "app.txt")
    run_git(checkout, "submodule", "deinit", "-q", "--force", "--", "external/lib")
    with pytest.raises(SourceError, match="not initialized"):
        use_override(upstream.pin(), checkout)
    # Where the engine needs no submodules, the same tree qualifies.
    _, stamp = use_override(upstream.pin(submodules=False), checkout)
    assert stamp == "qualified-with-engine-override"


def test_override_must_be_the_repository_root(
    upstream: Upstream, checkout: Path, tmp_path: Path
) -> None:
    with pytest.raises(SourceError, match="not the root of a app checkout"):
        use_override(upstream.pin(), checkout / "external")
    (checkout / "external" / "app.txt").write_text("a marker, but not the root\n")
    with pytest.raises(SourceError, match="inside the git checkout"):
        use_override(upstream.pin(), checkout / "external")
    with pytest.raises(SourceError, match="is not a folder"):
        use_override(upstream.pin(), tmp_path / "absent")


def test_unversioned_tree_is_development_only(
    upstream: Upstream, checkout: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "export"
    shutil.copytree(checkout, copy, ignore=shutil.ignore_patterns(".git"))
    with pytest.raises(SourceError, match="not a git checkout"):
        use_override(upstream.pin(), copy)
    records, stamp = use_override(upstream.pin(), copy, allow_unpinned=True)
    assert stamp == "development-overrides" and records[0].commit == "unversioned"


def test_version_below_floor_is_development_only(upstream: Upstream, checkout: Path) -> None:
    (checkout / "version.h").write_text('#define APP_VERSION "v1.15.2"\n')
    run_git(checkout, "add", "version.h")
    run_git(checkout, "commit", "-q", "-m", "version")
    pin = attrs.evolve(
        upstream.pin(run_git(checkout, "rev-parse", "HEAD")),
        min_version="1.16.0",
        version_file="version.h",
        version_pattern=r'APP_VERSION\s+"v?([^"]+)"',
    )
    with pytest.raises(SourceError, match=r"1\.15\.2 is below the supported 1\.16\.0"):
        use_override(pin, checkout)
    assert use_override(pin, checkout, allow_unpinned=True)[1] == "development-overrides"


def test_unknown_override_name_is_refused(upstream: Upstream, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="unknown repository 'tflite'"):
        materialize_pins([upstream.pin()], overrides={"tflite": tmp_path})


def test_pinned_checkout_in_cache_is_not_touched_by_an_override(
    upstream: Upstream, checkout: Path, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    materialize_pin(upstream.pin(), store)
    (checkout / "extra.txt").write_text("mine\n")
    with pytest.raises(SourceError, match="dirty"):
        materialize_pins([upstream.pin()], overrides={"app": checkout}, cache=store)
    assert (checkout / "extra.txt").exists()
