"""A checkout found at its pin is not asked again until something in it changes."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from gitrepos import Upstream

from hpx_core.sources.cache import SourceCache
from hpx_core.sources.checkout import git_at
from hpx_core.sources.materialize import materialize_pin
from hpx_core.sources.memo import remembered, signature

mat = importlib.import_module("hpx_core.sources.materialize")


def _refuse(*_args: object, **_kwargs: object) -> object:
    raise AssertionError("the checkout was inspected or signed again")


def test_an_unchanged_checkout_is_not_inspected_again(
        upstream: Upstream, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, pin = SourceCache(tmp_path / "cache"), upstream.pin()
    first = materialize_pin(pin, store)
    root = store.checkout("app")
    assert remembered(store.locks, pin, root)
    with monkeypatch.context() as patch:
        patch.setattr(mat, "inspect", _refuse)
        patch.setattr(mat, "remember", _refuse)  # one walk of the folder, not a second
        assert materialize_pin(pin, store) == first
        assert materialize_pin(pin, store, offline=True) == first


@pytest.mark.parametrize("change", ["same-size edit", "untracked in a nested submodule",
                                    "git add"])
def test_any_change_is_verified_and_synced_again(upstream: Upstream, tmp_path: Path,
                                                 change: str) -> None:
    store, pin = SourceCache(tmp_path / "cache"), upstream.pin()
    materialize_pin(pin, store)
    root = store.checkout("app")
    before = signature(root)
    if change == "same-size edit":
        (root / "app.txt").write_text("app 9\n")
    elif change == "untracked in a nested submodule":
        (root / "external/lib/third/leaf/new.txt").write_text("x\n")
    else:
        (root / "staged.txt").write_text("staged\n")
        git_at(root).add("staged.txt")
    assert signature(root) != before
    assert not remembered(store.locks, pin, root)
    materialize_pin(pin, store)  # verified in full: the change is discarded
    assert (root / "app.txt").read_text() == "app 3\n"
    assert not (root / "external/lib/third/leaf/new.txt").exists()
    assert not (root / "staged.txt").exists()
    assert remembered(store.locks, pin, root)
