"""A build stopped by ``kill`` (SIGTERM) or Ctrl-C ends with one error and one hint, its tools
stopped and nothing half-written; a killed ``hpx prepare``'s scratch folder goes with the next.

Real ``hpx`` processes build the loops engine's library and firmware with the real toolchain.
The compiler cache hpx puts in front of every compile is a launcher of the test's own, which
writes its process id to a file and waits, so each signal arrives while a compile runs (not
after some guessed time): the launcher's process shows whether hpx stopped its tools.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from emulated_firmware import fixture_build, require_tools
from loops_engine import loops_environment

from hpx_core.cli.stopping import KEPT

pytestmark = pytest.mark.emulated
HPX = Path(sys.executable).parent / "hpx"
KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"
CELL = ("--engine", "loops", "--board", "qemu-m55")
LAUNCHER = """#!/bin/sh
case "$1" in
  --version) echo "ccache version 4.7.5"; exit 0;;
  --get-config) exit 1;;
esac
for arg in "$@"; do
  if [ "$arg" = "-c" ]; then echo $$ >> "{marker}"; exec sleep 600; fi
done
exec "$@"
"""


def _environment(tmp_path: Path, blocking: bool = True) -> dict[str, str]:
    launcher = tmp_path / "launcher"
    launcher.write_text(LAUNCHER.format(marker=tmp_path / "compiling"))
    launcher.chmod(0o755)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return loops_environment(tmp_path / "site") | {
        "HPX_CACHE_DIR": str(tmp_path / "cache"), "TMPDIR": str(tmp_path / "tmp"),
        "HPX_COMPILER_CACHE": str(launcher) if blocking else "off", "COLUMNS": "200"}


def _start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    # A handled SIGINT is reset to its default in the child (an ignored one stays ignored).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen([str(HPX), *args], cwd=tmp_path, env=_environment(tmp_path),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, previous)


def _compiling(tmp_path: Path, proc: subprocess.Popen[str]) -> int:
    """The process id of the first compile, once it runs (bounded; fails with hpx's output
    if hpx ends first)."""
    marker = tmp_path / "compiling"
    for _ in range(6000):
        if marker.is_file() and marker.read_text().strip():
            return int(marker.read_text().split()[0])
        if proc.poll() is not None:
            raise AssertionError(f"hpx ended ({proc.returncode}) before compiling:\n"
                                 f"{proc.stdout and proc.stdout.read()}"
                                 f"{proc.stderr and proc.stderr.read()}")
        time.sleep(0.1)
    raise AssertionError("no compile started")


def _alive(pid: int) -> bool:
    """A process that runs (a zombie no reaper collected has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _half_made(cache: Path) -> list[Path]:
    return [p for p in cache.rglob("*") if ".tmp-" in p.name or p.name.endswith(".tmp")]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_build_says_so_and_stops_its_tools(tmp_path: Path,
                                                     stop: signal.Signals) -> None:
    require_tools()
    proc = _start(tmp_path, "build", str(KWS), *CELL, "--output-dir", str(tmp_path / "out"))
    compile_pid = _compiling(tmp_path, proc)
    proc.send_signal(stop)  # hpx alone, as `kill` does: its tools' group must be stopped by it
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + stop.value, err
    said = [line for line in err.splitlines() if line.startswith(("error:", "hint:"))]
    assert said == [f"error: stopped by {stop.name}", f"hint: {KEPT}"]
    assert "Traceback" not in out + err and "Aborted" not in err
    assert not _alive(compile_pid)
    assert _half_made(tmp_path / "cache") == []
    assert not list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else True


def test_a_stopped_prepare_leaves_no_scratch_folder(tmp_path: Path) -> None:
    require_tools()
    proc = _start(tmp_path, "prepare", str(KWS), *CELL)
    compile_pid = _compiling(tmp_path, proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 128 + signal.SIGTERM.value, err
    assert "error: stopped by SIGTERM" in err.splitlines()
    assert not _alive(compile_pid)
    assert list((tmp_path / "tmp").iterdir()) == []
    assert _half_made(tmp_path / "cache") == []


def test_a_killed_prepares_scratch_folder_is_removed_by_the_next(tmp_path: Path) -> None:
    require_tools()
    proc = _start(tmp_path, "prepare", str(KWS), *CELL)
    compile_pid = _compiling(tmp_path, proc)
    proc.kill()  # SIGKILL: nothing of hpx runs to clean up
    proc.communicate(timeout=300)
    os.killpg(os.getpgid(compile_pid), signal.SIGKILL)  # the tools hpx could not stop
    left = [p.name for p in (tmp_path / "tmp").iterdir() if p.is_dir()]
    assert len(left) == 1 and left[0].startswith("hpx-prepare-")
    done = subprocess.run([str(HPX), "prepare", str(KWS), *CELL], cwd=tmp_path,
                          env=_environment(tmp_path, blocking=False), capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr
    assert list((tmp_path / "tmp").iterdir()) == []


def _child(proc: subprocess.Popen[str]) -> int:
    """The process id of ``proc``'s first child, once there is one (bounded)."""
    for _ in range(3000):
        found = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
        if found.stdout.split():
            return int(found.stdout.split()[0])
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("hpx started no child")


def test_a_stopped_run_ends_qemu_and_keeps_a_failed_bundle(tmp_path: Path) -> None:
    """A firmware that never ends: SIGTERM reaches hpx alone, and QEMU must end with it."""
    hang, _ = fixture_build("hang_engine")
    out = tmp_path / "out"
    proc = _start(tmp_path, "run", "--work-dir", str(hang.root), "--output-dir", str(out),
                  "--timeout", "300")
    qemu = _child(proc)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    said = [line for line in err.splitlines() if line.startswith(("error:", "hint:"))]
    assert said[0] == "error: the run was interrupted" and len(said) == 2, err
    assert "failed bundle: " in said[1] and proc.returncode == 130
    assert not _alive(qemu)
    assert [p.name.endswith("-failed") for p in out.iterdir()] == [True]
