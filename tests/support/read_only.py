"""Commands run with a folder mounted read-only, as a CI image's shared cache is.

Root ignores permission bits, so the folder is made read-only for real: bound onto itself
read-only in a private mount namespace (``unshare -r -m``), where the command runs; outside,
the folder stays writable and nothing of the mount remains when the command ends.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest


def namespaces_work() -> bool:
    try:
        done = subprocess.run(["unshare", "-r", "-m", "true"], capture_output=True, timeout=30,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


needs_unshare = pytest.mark.skipif(not namespaces_work(),
                                   reason="needs unshare -r -m (user and mount namespaces)")


def run_read_only(folder: Path, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                  cwd: Path | None = None, timeout: float = 900
                  ) -> subprocess.CompletedProcess[str]:
    """``argv`` with ``folder`` read-only."""
    where = shlex.quote(str(folder))
    script = (f"mount --bind {where} {where} && mount -o remount,bind,ro {where} && "
              f"exec {shlex.join(argv)}")
    return subprocess.run(["unshare", "-r", "-m", "sh", "-c", script], capture_output=True,
                          text=True, timeout=timeout, check=False, cwd=cwd,
                          env=None if env is None else dict(env))
