"""Build tools run so that stopping hpx stops them too, and lets them clean up first.

CMake runs Ninja, which runs the compilers. Ctrl-C at a terminal reaches the whole foreground
group, but a ``kill`` (SIGTERM) reaches hpx alone: CMake, Ninja and the compilers would go on
writing into folders hpx is removing. So each tool starts in a process group of its own, and
when hpx is stopped while it waits (Ctrl-C and SIGTERM both arrive as ``KeyboardInterrupt``)
the group gets SIGTERM, on which Ninja stops its compiles and removes what they half-wrote; hpx
waits for that (a group that does not end in :data:`GRACE` seconds is killed) before it goes on
removing its own temporary folders.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator, Sequence
from typing import Any

GRACE = 30.0  # seconds a stopped tool's group has to end before it is killed


@contextlib.contextmanager
def stoppable(argv: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """``subprocess.Popen(argv, **popen)`` in its own process group; leaving the block by an
    exception (an interruption among them) ends the group before the exception goes on."""
    process: subprocess.Popen[Any] = subprocess.Popen(list(argv), start_new_session=True,
                                                      **popen)
    with process:  # its exit waits for the process: the group is stopped before
        try:
            yield process
        except BaseException:
            stop_group(process)
            raise


def stop_group(process: subprocess.Popen[Any]) -> None:
    """SIGTERM to ``process``'s group, a wait, then SIGKILL to whatever is left of it."""
    _signal_group(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired, KeyboardInterrupt):  # then killed
        process.wait(GRACE)
    _signal_group(process.pid, signal.SIGKILL)  # the group's other members, if any remain
    process.wait()


def _signal_group(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signum)


def run_captured(argv: Sequence[str], env: Any = None) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(argv, capture_output=True, text=True)`` through :func:`stoppable`."""
    with stoppable(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                   env=env) as process:
        out, err = process.communicate()
    return subprocess.CompletedProcess(list(argv), process.returncode, out, err)
