"""The version line a tool prints, asked once per installed binary.

Results record the version of every tool they depend on (the compiler, ccache, QEMU). A process
asks each tool once; a tool slow to answer (QEMU takes 20 ms to say which it is) may have its
answer kept in the hpx cache, named by the binary's resolved path, size, modification time and
inode, so an upgraded or replaced tool is asked again. Only the run stage keeps answers: the
checks before it (a toolchain that is not installed, say) write nothing, as a refused run must.
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from hpx_core.kept import KeptFolder

ANSWERS = KeptFolder("tool-versions", keep=64)


def version_line(binary: str | Path, *args: str, timeout: float = 30.0,
                 keep: bool = False) -> str | None:
    """The first line ``binary args`` (``--version`` by default) prints: its output, or its
    error stream when the output is empty; None when it cannot run, fails or says nothing.
    ``keep``: read and keep the answer in the hpx cache."""
    try:
        stat = Path(binary).resolve().stat()
    except OSError:
        return None
    identity = (str(Path(binary).resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return _answer(identity, args or ("--version",), timeout, keep)


@functools.lru_cache(maxsize=32)
def _answer(identity: tuple[str, int, int, int], args: tuple[str, ...], timeout: float,
            keep: bool) -> str | None:
    key = hashlib.sha256(repr((identity, args)).encode()).hexdigest()
    kept = ANSWERS.load(key) if keep else None
    if isinstance(kept, dict) and isinstance(kept.get("line"), str):
        return str(kept["line"])
    line = _ask(identity[0], args, timeout)
    if line is not None and keep:
        ANSWERS.store(key, {"tool": identity[0], "args": list(args), "line": line})
    return line


def _ask(binary: str, args: tuple[str, ...], timeout: float) -> str | None:
    try:
        done = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
    if done.returncode != 0 or not lines:
        return None
    return lines[0].strip()
