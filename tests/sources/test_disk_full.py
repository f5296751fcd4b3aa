"""A disk that fills up while git fetches or checks out is said as a full disk.

git's last words on a full disk blame the server ("could not fetch ... from promisor remote",
"invalid index-pack output"); hpx reads its answer for ENOSPC and says the disk is full, naming
the folder and what is free there. The disk is real and really full: a 1 MiB tmpfs mounted in
a private mount namespace (``unshare``), where a child process materializes a real repository
holding 2 MB that cannot be compressed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepos import git, new_repo
from read_only import needs_unshare

CHILD = """
import json, sys
from pathlib import Path
from hpx_core.errors import HpxError
from hpx_core.sources.cache import SourceCache
from hpx_core.sources.materialize import materialize_pin
from hpx_core.sources.pins import RepoPin

url, commit, disk, filler = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
(disk / "filler").write_bytes(bytes(filler))
pin = RepoPin("big", url, commit, "MIT", "any", markers=("small.txt",))
try:
    materialize_pin(pin, SourceCache(disk / "cache"))
    said = {"ok": True}
except HpxError as error:
    said = {"message": error.message, "hint": error.hint}
sources = disk / "cache" / "sources"
said["left"] = sorted(p.name for p in sources.iterdir()) if sources.is_dir() else []
print(json.dumps(said))
"""


@pytest.fixture
def big_repo(tmp_path: Path) -> tuple[str, str]:
    """A repository with a small file and 2 MB of random bytes; it serves partial clones."""
    repo = new_repo(tmp_path, "big")
    (repo / "small.txt").write_text("small\n")
    (repo / "big.bin").write_bytes(os.urandom(2_000_000))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "big")
    git(repo, "config", "uploadpack.allowFilter", "true")
    return f"file://{repo}", git(repo, "rev-parse", "HEAD")


def _on_a_full_disk(tmp_path: Path, url: str, commit: str, filler: int) -> dict[str, object]:
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (f"mount -t tmpfs -o size=1m tmpfs {disk} && "
              f'exec "$0" -c "$1" "$2" "$3" "$4" "$5"')
    done = subprocess.run(["unshare", "-r", "-m", "sh", "-c", script, sys.executable, CHILD,
                           url, commit, str(disk), str(filler)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    said: dict[str, object] = json.loads(done.stdout)
    return said


@needs_unshare
@pytest.mark.parametrize(("filler", "step"), [(0, "check out big"), (1_000_000, "clone")])
def test_a_full_disk_is_said_with_the_folder_and_free_space(
        big_repo: tuple[str, str], tmp_path: Path, filler: int, step: str) -> None:
    """No filler: the clone (history, no file contents) fits and the checkout's fetch of the
    2 MB does not. Filled first: the clone itself finds no room."""
    url, commit = big_repo
    said = _on_a_full_disk(tmp_path, url, commit, filler)
    message, hint = str(said["message"]), str(said["hint"])
    assert f"cannot {step}" in message
    assert "the disk is full (" in message
    assert f"free in {tmp_path / 'disk' / 'cache' / 'sources'};" in message
    assert "No space left on device" in message
    assert "\n" not in message and "\n" not in hint
    assert hint.startswith("free space on that disk")
    assert "cache clean" not in hint and "insteadOf" not in hint and "mirror" not in hint
    assert said["left"] == []  # the half-made clone was removed
