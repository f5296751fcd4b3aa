"""The engine cache's folders: made once per key, atomically, with a failed build's log kept."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hpx_core.errors import BuildError, HpxError
from hpx_core.locks import listening
from hpx_core.sdk.enginelib import cached_folder


def test_made_once_then_found(tmp_path: Path) -> None:
    calls: list[Path] = []

    def make(temp: Path, final: Path) -> dict[str, Any]:
        calls.append(final)
        (temp / "lib.a").write_bytes(b"!<arch>\n")
        return {"files": 1}

    first = cached_folder("demo", "ab" * 32, make, root=tmp_path)
    again = cached_folder("demo", "ab" * 32, make, root=tmp_path)
    assert first.built and not again.built and len(calls) == 1
    assert first.folder == again.folder == tmp_path / "engines" / f"demo-{'ab' * 10}"
    assert (again.folder / "lib.a").is_file()
    assert again.manifest["key"] == "ab" * 32 and again.manifest["files"] == 1


def test_a_failed_build_leaves_its_log_and_nothing_else(tmp_path: Path) -> None:
    def make(temp: Path, _final: Path) -> dict[str, Any]:
        (temp / "build.log").write_text("cc1: error: bad flag\n")
        raise BuildError("the demo build failed", "see the log")

    with pytest.raises(BuildError) as caught:
        cached_folder("demo", "cd" * 32, make, root=tmp_path)
    kept = tmp_path / "engines" / f"demo-{'cd' * 10}.failed.log"
    assert caught.value.hint == f"full log: {kept}"
    assert kept.read_text() == "cc1: error: bad flag\n"
    leftovers = [p.name for p in (tmp_path / "engines").iterdir() if not p.name.endswith(".lock")]
    assert leftovers == [kept.name]


def test_a_second_run_waits_says_so_and_does_not_build_again(tmp_path: Path) -> None:
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def make(temp: Path, _final: Path) -> dict[str, Any]:
        calls.append(threading.current_thread().name)
        started.set()
        assert release.wait(30)
        (temp / "lib.a").write_bytes(b"!<arch>\n")
        return {}

    builder = threading.Thread(target=cached_folder, args=("demo", "ef" * 32, make),
                               kwargs={"root": tmp_path}, name="builder")
    builder.start()
    assert started.wait(30)
    heard: list[str] = []
    waiter_done: list[bool] = []

    def wait_for_it() -> None:
        with listening(heard.append):
            waiter_done.append(cached_folder("demo", "ef" * 32, make, root=tmp_path).built)

    waiter = threading.Thread(target=wait_for_it, name="waiter")
    waiter.start()
    for _ in range(300):  # the waiter says it waits before it blocks
        if heard:
            break
        time.sleep(0.01)
    assert heard == [f"engine library demo-{'ef' * 10}"]
    release.set()
    builder.join(30)
    waiter.join(30)
    assert calls == ["builder"] and waiter_done == [False]


def _archive_maker(calls: list[str]) -> Any:
    def make(temp: Path, _final: Path) -> dict[str, Any]:
        calls.append("built")
        (temp / "lib").mkdir()
        (temp / "lib" / "libdemo.a").write_bytes(b"!<arch>\n" + b"member" * 100)
        (temp / "build.log").write_text("compiled 1 unit\n")
        return {"units": 1}

    return make


@pytest.mark.parametrize("damage", ["truncated archive", "empty archive", "garbage archive",
                                    "deleted manifest", "truncated manifest", "other key"])
def test_a_damaged_entry_is_built_once_more_then_used(tmp_path: Path, damage: str) -> None:
    calls: list[str] = []
    make = _archive_maker(calls)
    first = cached_folder("demo", "ef" * 32, make, root=tmp_path)
    archive, manifest = first.folder / "lib" / "libdemo.a", first.folder / "manifest.json"
    if damage == "truncated archive":
        archive.write_bytes(archive.read_bytes()[:40])
    elif damage == "empty archive":
        archive.write_bytes(b"")
    elif damage == "garbage archive":  # the same size: only its digest tells
        archive.write_bytes(bytes(len(archive.read_bytes())))
    elif damage == "deleted manifest":
        manifest.unlink()
    elif damage == "truncated manifest":
        manifest.write_text(manifest.read_text()[:30])
    else:
        manifest.write_text(manifest.read_text().replace("ef" * 32, "00" * 32))
    again = cached_folder("demo", "ef" * 32, make, root=tmp_path)
    assert again.built and calls == ["built", "built"]
    assert archive.read_bytes() == b"!<arch>\n" + b"member" * 100
    assert not cached_folder("demo", "ef" * 32, make, root=tmp_path).built
    assert [p.name for p in (tmp_path / "engines").iterdir() if ".tmp-" in p.name] == []


def test_a_copy_with_new_times_is_used_and_sealed_again(tmp_path: Path) -> None:
    calls: list[str] = []
    make = _archive_maker(calls)
    first = cached_folder("demo", "ab" * 32, make, root=tmp_path)
    archive = first.folder / "lib" / "libdemo.a"
    os.utime(archive, ns=(1, 1))  # copied without its times: the digest decides
    assert not cached_folder("demo", "ab" * 32, make, root=tmp_path).built
    recorded = json.loads((first.folder / "manifest.json").read_text())["contents"]
    assert recorded["lib/libdemo.a"]["mtime_ns"] == 1 and calls == ["built"]


def test_an_entry_from_before_the_seal_is_sealed_when_whole(tmp_path: Path) -> None:
    calls: list[str] = []
    make = _archive_maker(calls)
    first = cached_folder("demo", "cd" * 32, make, root=tmp_path)
    manifest = first.folder / "manifest.json"
    old = {k: v for k, v in json.loads(manifest.read_text()).items() if k != "contents"}
    manifest.write_text(json.dumps(old))
    assert not cached_folder("demo", "cd" * 32, make, root=tmp_path).built
    assert "lib/libdemo.a" in json.loads(manifest.read_text())["contents"]
    manifest.write_text(json.dumps(old))
    (first.folder / "lib" / "libdemo.a").write_text("a page of HTML, not an archive")
    assert cached_folder("demo", "cd" * 32, make, root=tmp_path).built
    assert calls == ["built", "built"]


def test_a_stale_temporary_build_is_cleared_beside_a_whole_entry(tmp_path: Path) -> None:
    make = _archive_maker([])
    first = cached_folder("demo", "aa" * 32, make, root=tmp_path)
    stale = first.folder.parent / f".{first.folder.name}.tmp-build"
    (stale / "obj").mkdir(parents=True)
    assert not cached_folder("demo", "aa" * 32, make, root=tmp_path).built
    assert not stale.exists()


def test_an_engines_folder_that_is_a_file_is_one_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "engines").write_text("not a folder")
    with pytest.raises(HpxError, match="cannot take the lock") as caught:
        cached_folder("demo", "bb" * 32, _archive_maker([]), root=tmp_path)
    assert str(tmp_path / "engines") in caught.value.hint
