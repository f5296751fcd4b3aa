"""The engine cache's folders: made once per key, atomically, with a failed build's log kept."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hpx_core.enginelib import cached_folder
from hpx_core.errors import BuildError
from hpx_core.locks import listening


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
