"""The version line a tool prints, asked once per installed binary.

Results record the version of every tool they depend on (the compiler, ccache, QEMU), and a new
process would ask each one again: QEMU alone takes 20 ms to say which it is. A binary's answer
is kept in the hpx cache, named by its resolved path, size, modification time and inode, so an
upgraded or replaced tool is asked again.
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from hpx_core.kept import KeptFolder

ANSWERS = KeptFolder("tool-versions", keep=64)


def version_line(binary: str | Path, *args: str, timeout: float = 30.0) -> str | None:
    """The first line ``binary args`` (``--version`` by default) prints: its output, or its
    error stream when the output is empty; None when it cannot run, fails or says nothing."""
    try:
        stat = Path(binary).resolve().stat()
    except OSError:
        return None
    identity = (str(Path(binary).resolve()), stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return _answer(identity, args or ("--version",), timeout)


@functools.lru_cache(maxsize=32)
def _answer(identity: tuple[str, int, int, int], args: tuple[str, ...],
            timeout: float) -> str | None:
    key = hashlib.sha256(repr((identity, args)).encode()).hexdigest()
    kept = ANSWERS.load(key)
    if isinstance(kept, dict) and isinstance(kept.get("line"), str):
        return str(kept["line"])
    line = _ask(identity[0], args, timeout)
    if line is not None:
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
