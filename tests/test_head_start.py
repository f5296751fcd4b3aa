"""The head start of a warm emulated run: QEMU started on the ELF the same command ran last,
taken over only when the run stage would start the very same run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hpx_core import head_start
from hpx_core.boards import get_board


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A cache of the test's own, two cores whatever the machine has, and no run started ahead
    or command noted after it."""
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(head_start, "usable_cores", lambda: 2)
    yield
    head_start.cancel()
    head_start._key = None


def test_a_command_is_named_by_its_arguments_folder_and_hpx_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = head_start.command_key(["profile", "m.tflite"])
    assert head_start.command_key(["profile", "m.tflite"]) == first
    assert head_start.command_key(["profile", "n.tflite"]) != first
    monkeypatch.setenv("HPX_LOG_LEVEL", "debug")
    assert head_start.command_key(["profile", "m.tflite"]) != first
    monkeypatch.delenv("HPX_LOG_LEVEL")
    monkeypatch.chdir(tmp_path)
    assert head_start.command_key(["profile", "m.tflite"]) != first


@pytest.mark.parametrize("document", [
    {"machine": "mps3-an547,memory-backend=x", "cpu": "cortex-m55", "icount_shift": 10,
     "elf": "/w/fw.elf"},
    {"machine": "mps3-an547", "cpu": "-append", "icount_shift": 10, "elf": "/w/fw.elf"},
    {"machine": "mps3-an547", "cpu": "cortex-m55", "icount_shift": True, "elf": "/w/fw.elf"},
    {"machine": "mps3-an547", "cpu": "cortex-m55", "icount_shift": 10, "elf": "fw.elf"},
    ["mps3-an547"],
])
def test_a_kept_run_that_hpx_would_not_have_written_starts_nothing(
        document: object, monkeypatch: pytest.MonkeyPatch) -> None:
    key = head_start.command_key(["profile", "m.tflite"])
    head_start.RUNS.store(key, document)
    monkeypatch.setattr(head_start.shutil, "which", lambda _name: "/bin/true")
    head_start.start(["profile", "m.tflite"])
    assert head_start._pending is None


def test_other_commands_get_no_head_start_and_keep_nothing(tmp_path: Path) -> None:
    head_start.start(["build", "m.tflite"])
    head_start.remember("mps3-an547", "cortex-m55", 10, tmp_path / "fw.elf")
    assert not (tmp_path / "cache" / head_start.RUNS.name).exists()


@pytest.mark.emulated
def test_the_same_run_is_taken_over_and_gives_the_same_stream() -> None:
    from emulated_firmware import selftest_build

    from hpx_core.run import run_on_qemu

    project, built = selftest_build("qemu-m55")
    command = ["run", "--work-dir", str(project.root)]
    head_start.start(command)
    assert head_start._pending is None  # nothing kept yet
    first = run_on_qemu(project.board, built.elf, timeout=120)
    assert not first.head_start and first.exit_code == 0
    head_start.start(command)
    early = head_start._pending
    assert early is not None
    again = run_on_qemu(project.board, built.elf, timeout=120)
    assert again.head_start and early.proc.returncode == 0
    assert (again.stream, again.exit_code, again.argv) == (first.stream, 0, first.argv)


@pytest.mark.emulated
def test_a_changed_elf_or_another_board_stops_the_run_started_ahead(tmp_path: Path) -> None:
    from emulated_firmware import selftest_build

    from hpx_core.run import qemu_argv, run_on_qemu

    project, built = selftest_build("qemu-m55")
    elf = tmp_path / "fw.elf"
    elf.write_bytes(built.elf.read_bytes())
    head_start.start(["run", "x"])
    first = run_on_qemu(project.board, elf, timeout=120)
    head_start.start(["run", "x"])
    early = head_start._pending
    assert early is not None
    os.utime(elf, ns=(1, 1))  # the same bytes, written again: not the file the run started on
    again = run_on_qemu(project.board, elf, timeout=120)
    assert not again.head_start and again.stream == first.stream
    assert early.proc.returncode is not None and early.out.closed
    head_start.start(["run", "x"])  # kept anew by that run
    early = head_start._pending
    assert early is not None
    assert head_start.take(qemu_argv(get_board("qemu-m4"), elf), elf) is None
    assert early.proc.returncode is not None and early.out.closed
    assert head_start._pending is None


@pytest.mark.emulated
def test_the_console_script_takes_over_its_own_run_and_records_it(tmp_path: Path) -> None:
    from emulated_firmware import require_tools

    require_tools()
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: the console script starts no run ahead")
    hpx = str(Path(sys.executable).parent / "hpx")
    env = {**os.environ, "HPX_CACHE_DIR": str(tmp_path / "cache")}
    work, results = tmp_path / "w", tmp_path / "r"
    subprocess.run([hpx, "build", "--board", "qemu-m55", "--work-dir", str(work)], env=env,
                   check=True, capture_output=True)
    runs = []
    for _ in range(3):
        done = subprocess.run([hpx, "run", "--work-dir", str(work), "--output-dir",
                               str(results)], env=env, capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
        bundle = max(results.iterdir(), key=lambda p: p.stat().st_mtime_ns)
        runs.append((json.loads((bundle / "run.json").read_text()),
                     (bundle / "capture.bin").read_bytes()))
    assert [run["head_start"] for run, _ in runs] == [False, True, True]
    assert runs[0][1] == runs[1][1] == runs[2][1]
    assert {run["exit_code"] for run, _ in runs} == {0}


def test_the_switch_and_a_single_core_turn_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    key = head_start.command_key(["run", "x"])
    head_start.RUNS.store(key, {"machine": "mps3-an547", "cpu": "cortex-m55",
                                "icount_shift": 10, "elf": sys.executable})
    monkeypatch.setattr(head_start.shutil, "which", lambda _name: "/bin/true")
    monkeypatch.setenv(head_start.SWITCH, "off")
    head_start.start(["run", "x"])
    assert head_start._pending is None
    monkeypatch.delenv(head_start.SWITCH)
    monkeypatch.setattr(head_start, "usable_cores", lambda: 1)
    head_start.start(["run", "x"])
    assert head_start._pending is None  # one core: nothing to overlap with
    monkeypatch.setattr(head_start, "usable_cores", lambda: 2)
    head_start.start(["run", "x"])
    assert head_start._pending is not None and head_start._pending.argv[0] == "/bin/true"


@pytest.mark.emulated
def test_a_build_that_changes_the_firmware_stops_the_run_started_ahead(tmp_path: Path) -> None:
    from emulated_firmware import build, selftest_build

    from hpx_core.selftest.layers import selftest_contribution

    project, built = selftest_build("qemu-m55")
    head_start.start(["run", "x"])
    head_start.remember("mps3-an547", "cortex-m55", 10, built.elf)
    head_start.start(["run", "x"])
    early = head_start._pending
    assert early is not None and early.argv[-1] == str(built.elf)
    build(tmp_path / "p", "qemu-m55", selftest_contribution(project.board), "selftest")
    assert head_start._pending is None
    assert early.proc.returncode is not None and early.out.closed


def test_a_head_start_that_cannot_start_leaves_the_command_to_run_as_usual(
        monkeypatch: pytest.MonkeyPatch) -> None:
    key = head_start.command_key(["run", "x"])
    head_start.RUNS.store(key, {"machine": "mps3-an547", "cpu": "cortex-m55",
                                "icount_shift": 10, "elf": sys.executable})
    monkeypatch.setattr(head_start.shutil, "which", lambda _name: "/nonexistent/qemu")
    head_start.start(["run", "x"])  # the binary is gone as it starts: no error, no run
    assert head_start._pending is None
