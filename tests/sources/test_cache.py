"""The cache location, per-pin states, sizes and cleaning."""

from __future__ import annotations

import os
from pathlib import Path

import attrs
import pytest
from gitrepos import Upstream
from gitrepos import git as run_git

from hpx_core.errors import SourceError
from hpx_core.sources.cache import (
    SourceCache,
    cache_info,
    cache_root,
    clean_cache,
    folder_size,
    pin_states,
)
from hpx_core.sources.checkout import submodule_state
from hpx_core.sources.materialize import materialize_pin


def test_cache_root_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", "/somewhere/else")
    assert cache_root() == Path("/somewhere/else")
    monkeypatch.delenv("HPX_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert cache_root() == Path.home() / ".cache" / "hpx"


def test_states_missing_at_pin_dirty_wrong_commit_invalid(
    upstream: Upstream, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin()

    def state() -> str:
        return pin_states([pin], store)[0].state.state

    assert state() == "missing"
    materialize_pin(pin, store)
    assert state() == "at pin"
    (store.checkout("app") / "notes.txt").write_text("untracked\n")
    assert state() == "dirty"
    materialize_pin(pin, store)
    run_git(store.checkout("app"), "checkout", "-q", "--detach", upstream.c2)
    assert state() == "wrong commit"
    other = attrs.evolve(pin, url=upstream.url("lib"))
    assert pin_states([other], store)[0].state.state == "invalid"


def test_info_sizes_and_clean(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    materialize_pin(upstream.pin(), store)
    (store.root / "downloads").mkdir()
    (store.root / "downloads" / "blob").write_bytes(b"x" * 1000)
    info = cache_info(store)
    sizes = {e.name: e.size for e in info.entries}
    assert sizes["downloads"] == 1000
    checkout = store.checkout("app")
    expected = sum(
        (Path(d) / f).lstat().st_size for d, _, files in os.walk(checkout) for f in files
    )
    assert sizes["sources/app"] == expected == folder_size(checkout)
    assert info.total == expected + 1000
    assert clean_cache(["app"], store) == (checkout,)
    assert not checkout.exists() and (store.root / "downloads").exists()
    materialize_pin(upstream.pin(), store)
    removed = clean_cache(None, store)
    assert set(removed) == {checkout, store.root / "downloads"}
    assert cache_info(store).entries == ()


def test_clean_refuses_unknown_names(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="nothing cached for 'nope'"):
        clean_cache(["nope"], SourceCache(tmp_path / "cache"))


def test_submodule_states(upstream: Upstream, tmp_path: Path) -> None:
    store = SourceCache(tmp_path / "cache")
    pin = upstream.pin_with_opt(required=False)
    root = store.checkout("app")
    lib, leaf, _opt = pin.submodules
    assert submodule_state(root, pin, lib) == "missing"
    materialize_pin(pin, store)
    assert [submodule_state(root, pin, s) for s in pin.submodules] == ["at pin", "at pin", "absent"]
    (root / "external/lib/third/leaf/leaf.txt").write_text("edited\n")
    assert submodule_state(root, pin, leaf) == "dirty"
    assert submodule_state(root, pin, lib) == "at pin"
    run_git(root / "external/lib", "checkout", "-q", "--detach", "HEAD~1")
    assert submodule_state(root, pin, lib) == "wrong commit"


def test_a_locks_folder_that_is_a_file_is_one_error_naming_it(
    upstream: Upstream, tmp_path: Path
) -> None:
    store = SourceCache(tmp_path / "cache")
    store.root.mkdir()
    store.locks.write_text("a file where hpx keeps its locks")
    with pytest.raises(SourceError, match="cannot make the cache's lock folder") as caught:
        materialize_pin(upstream.pin(), store)
    assert str(store.locks) in caught.value.message and str(store.locks) in caught.value.hint
