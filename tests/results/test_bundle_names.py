"""A bundle's name is claimed atomically: writers finishing at once never lose a bundle, and
what a killed writer left behind is removed by the next one."""

from __future__ import annotations

import multiprocessing
import os
import socket
import subprocess
import sys
from pathlib import Path

from hpx_core.results import verify_bundle
from hpx_core.results.bundle import BundleInputs, write_bundle, write_folder

WRITERS, EACH = 8, 5


def _write_many(results: str, writer: int) -> list[str]:
    made = []
    for n in range(EACH):
        inputs = BundleInputs(board="qemu-m55", engine="demo", status="failed",
                              counter_units="instructions (emulated)",
                              extra={"writer": writer, "n": n})
        made.append(write_bundle(Path(results), inputs, "same-name").name)
    return made


def test_eight_writers_of_one_name_keep_every_bundle(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")  # separate processes, as separate runs
    with context.Pool(WRITERS) as pool:
        names = [n for made in pool.starmap(_write_many, [(str(tmp_path), w)
                                                          for w in range(WRITERS)])
                 for n in made]
    assert len(names) == len(set(names)) == WRITERS * EACH
    folders = sorted(p for p in tmp_path.iterdir())
    assert [p.name for p in folders] == sorted(names)  # no temporary folder left either
    contents = {(p / "summary.json").read_bytes() for p in folders}
    assert len(contents) == WRITERS * EACH
    for folder in folders:
        verify_bundle(folder)


def test_a_killed_writers_temporary_bundle_is_removed_by_the_next(tmp_path: Path) -> None:
    host = "".join(c for c in socket.gethostname() if c.isalnum())[:32] or "host"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    dead = tmp_path / f".tmp-bundle-{host}-{gone}-abc"
    live = tmp_path / f".tmp-bundle-{host}-{os.getpid()}-def"
    other_host = tmp_path / f".tmp-bundle-elsewhere-{gone}-ghi"
    for folder in (dead, live, other_host):
        (folder / "half").mkdir(parents=True)
    write_folder(tmp_path, "next", {"summary.json": b"{}"}, "failed")
    assert not dead.exists() and live.exists() and other_host.exists()
