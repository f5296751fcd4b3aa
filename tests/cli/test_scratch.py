"""Scratch folders: a live run's is left alone, a dead run's is removed by the next run.

The live run is a real process holding the folder's lock; the dead one is a folder whose lock
nobody holds, as SIGKILL leaves it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hpx_core.cli.scratch import LOCK, scratch_folder

HOLDER = """
import sys
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_live_runs_folder_stays_and_a_dead_runs_goes(tmp_path: Path) -> None:
    live, dead = tmp_path / "hpx-prepare-live", tmp_path / "hpx-prepare-dead"
    for folder in (live, dead):
        (folder / "work").mkdir(parents=True)
    (tmp_path / f"hpx-prepare-orphan{LOCK}").write_text("")  # killed before its folder
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(live) + LOCK],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with scratch_folder("hpx-prepare-", tmp_path) as mine:
            assert mine.is_dir() and Path(str(mine) + LOCK).is_file()
            assert live.is_dir() and not dead.exists()
            assert not (tmp_path / f"hpx-prepare-orphan{LOCK}").exists()
        assert not mine.exists() and not Path(str(mine) + LOCK).exists()
    finally:
        holder.communicate("", timeout=60)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hpx-prepare-live",
                                                          f"hpx-prepare-live{LOCK}"]


def test_the_folder_goes_when_the_block_is_interrupted(tmp_path: Path) -> None:
    try:
        with scratch_folder("hpx-prepare-", tmp_path):
            raise KeyboardInterrupt("SIGTERM")
    except KeyboardInterrupt:
        pass
    assert list(tmp_path.iterdir()) == []
