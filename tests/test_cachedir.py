"""The cache folder's name: hpx's own, in the user's cache folder, an earlier one carried over."""

from __future__ import annotations

from pathlib import Path

import pytest

from hpx_core.cachedir import cache_root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("HPX_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return tmp_path


def test_the_default_is_named_after_hpx(home: Path) -> None:
    assert cache_root() == home / ".cache" / "hpx"


def test_xdg_cache_home_is_followed_when_absolute(home: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg"))
    assert cache_root() == home / "xdg" / "hpx"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/xdg")  # the spec says ignore it
    assert cache_root() == home / ".cache" / "hpx"


def test_an_earlier_release_s_cache_is_moved_with_what_it_holds(home: Path) -> None:
    legacy = home / ".cache" / "helia-profiler"
    (legacy / "libraries").mkdir(parents=True)
    (legacy / "libraries" / "kept.a").write_bytes(b"built once")
    root = cache_root()
    assert root == home / ".cache" / "hpx"
    assert (root / "libraries" / "kept.a").read_bytes() == b"built once"
    assert not legacy.exists()
    assert cache_root() == root  # found where it went


def test_an_earlier_cache_that_cannot_be_moved_is_read_in_place(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    legacy = home / ".cache" / "helia-profiler"
    legacy.mkdir(parents=True)
    (home / "not-a-folder").write_text("a file where the cache folder's parent would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "not-a-folder"))
    assert cache_root() == legacy
    assert legacy.is_dir()


def test_a_new_cache_wins_over_an_earlier_one(home: Path) -> None:
    (home / ".cache" / "helia-profiler").mkdir(parents=True)
    (home / ".cache" / "hpx").mkdir()
    assert cache_root() == home / ".cache" / "hpx"
    assert (home / ".cache" / "helia-profiler").is_dir()  # left alone, never merged


def test_the_environment_names_the_folder_outright(home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (home / ".cache" / "helia-profiler").mkdir(parents=True)
    monkeypatch.setenv("HPX_CACHE_DIR", str(home / "elsewhere"))
    assert cache_root() == home / "elsewhere"
    assert (home / ".cache" / "helia-profiler").is_dir()
