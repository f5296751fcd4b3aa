"""Kept documents: whole or absent, unreadable ones computed again, the folder pruned by use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hpx_core.kept import KeptFolder


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_a_stored_document_loads_and_leaves_no_temporary_file(cache: Path) -> None:
    folder = KeptFolder("facts")
    assert folder.load("abc") is None
    folder.store("abc", {"sizes": [1, 2], "name": "kws"})
    assert folder.load("abc") == {"sizes": [1, 2], "name": "kws"}
    assert [p.name for p in (cache / "facts").iterdir()] == ["abc.json"]


def test_a_damaged_document_is_absent(cache: Path) -> None:
    folder = KeptFolder("facts")
    folder.path("abc").parent.mkdir(parents=True)
    folder.path("abc").write_text('{"sizes": [1,', encoding="utf-8")
    assert folder.load("abc") is None


def test_an_edited_or_moved_document_is_absent(cache: Path) -> None:
    """The seal: a document edited by hand (valid JSON), one copied under another key, and
    one in the unsealed shape of earlier versions are all computed again."""
    folder = KeptFolder("facts")
    folder.store("abc", {"ops": ["CONV_2D"]})
    text = folder.path("abc").read_text(encoding="utf-8")
    folder.path("abc").write_text(text.replace("CONV_2D", "FAKE_OP"), encoding="utf-8")
    assert folder.load("abc") is None
    folder.store("abc", {"ops": ["CONV_2D"]})
    folder.path("xyz").write_text(folder.path("abc").read_text(encoding="utf-8"),
                                  encoding="utf-8")
    assert folder.load("abc") == {"ops": ["CONV_2D"]} and folder.load("xyz") is None
    folder.path("old").write_text('{"ops": ["CONV_2D"]}', encoding="utf-8")
    assert folder.load("old") is None


def test_a_cache_that_cannot_be_written_keeps_nothing(cache: Path) -> None:
    (cache / "facts").write_text("a file where the folder should be", encoding="utf-8")
    folder = KeptFolder("facts")
    folder.store("abc", {"n": 1})  # no error: the next run computes it again
    assert folder.load("abc") is None


def test_the_least_recently_used_documents_are_pruned(cache: Path) -> None:
    folder = KeptFolder("facts", keep=2)
    folder.store("a", {"n": 0})
    folder.store("b", {"n": 1})
    os.utime(folder.path("a"), ns=(1, 1))  # the oldest...
    os.utime(folder.path("b"), ns=(2, 2))
    assert folder.load("a") == {"n": 0}  # ...used again: stays
    folder.store("c", {"n": 2})  # the third document: the least recently used goes
    assert [folder.path(k).is_file() for k in "abc"] == [True, False, True]


def test_byte_strings_round_trip_and_a_damaged_one_is_absent(cache: Path) -> None:
    folder = KeptFolder("blobs")
    folder.store_blobs("k", (b"\x00\xff", b""), made_by="test")
    assert folder.load_blobs("k") == (b"\x00\xff", b"")
    assert folder.load("k")["made_by"] == "test"
    folder.store("k", {"blobs": ["not base64!"]})
    assert folder.load_blobs("k") is None
