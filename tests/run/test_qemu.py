"""The QEMU runner: its command line, a real run, a timeout, and a capture limit."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import attrs
import pytest
from emulated_firmware import fixture_build, selftest_run

from hpx_core.boards import get_board
from hpx_core.errors import RunError
from hpx_core.run import QemuRunner, qemu_argv, run_and_record, run_on_qemu
from hpx_core.run.runner import MAX_CAPTURE
from hpx_core.wire import VERSION

T = TypeVar("T")


def test_argv_is_a_list_with_icount_and_no_way_to_the_host() -> None:
    argv = qemu_argv(get_board("qemu-m4"), Path("fw.elf"), "qemu-system-arm")
    assert argv[:5] == ["qemu-system-arm", "-machine", "mps2-an386", "-cpu", "cortex-m4"]
    assert argv[argv.index("-icount") + 1] == "shift=10,sleep=off"
    assert not any("semihosting" in arg for arg in argv)
    assert argv[argv.index("-nic") + 1] == "none" and "-no-reboot" in argv
    assert "spawn=deny" in argv[argv.index("-sandbox") + 1]
    assert argv[-2:] == ["-kernel", "fw.elf"]


def test_missing_elf_is_a_run_error(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="does not exist"):
        run_on_qemu(get_board("qemu-m55"), tmp_path / "none.elf")


@pytest.mark.emulated
@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
def test_selftest_exits_zero_with_a_stream(board: str) -> None:
    out = selftest_run(board)
    assert out.exit_code == 0 and not out.timed_out
    assert out.stream.startswith(f"@HPX 0 START v={VERSION} board={board}".encode())
    assert out.stream.endswith(b"\n") and b" END status=0 " in out.stream


@pytest.mark.emulated
def test_hanging_firmware_times_out_with_its_partial_stream() -> None:
    project, built = fixture_build("hang_engine")
    out = run_on_qemu(project.board, built.elf, timeout=3)
    assert out.timed_out and out.exit_code is None
    assert b" CAL " in out.stream and b" END " not in out.stream


@pytest.mark.emulated
def test_large_zeroed_data_does_not_wipe_code_memory() -> None:
    project, built = fixture_build("big_bss_engine", "qemu-m4")
    out = run_on_qemu(project.board, built.elf, timeout=60)
    assert out.exit_code == 0 and not out.timed_out, out.stream[-200:]
    assert b" END status=0 " in out.stream


@pytest.mark.emulated
def test_a_segment_outside_the_memory_map_is_refused_before_running() -> None:
    project, built = fixture_build("big_bss_engine", "qemu-m4")
    code_only = attrs.evolve(project.board, memory=project.board.memory[:1])
    with pytest.raises(RunError, match="outside every memory region of qemu-m4"):
        run_on_qemu(code_only, built.elf)


def _peak_bytes(call: Callable[[], T]) -> tuple[T | RunError, int]:
    """What ``call`` returned (or the RunError it raised) and the most bytes Python held
    meanwhile (tracemalloc: every object made, the captured stream's among them)."""
    tracemalloc.start()
    try:
        try:
            result: T | RunError = call()
        except RunError as error:
            result = error
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _failed_bundle(error: RunError) -> Path:
    bundle = Path(error.hint.split("failed bundle: ")[1])
    assert json.loads((bundle / "summary.json").read_text())["status"] == "failed"
    assert not list(bundle.parent.glob(".tmp-bundle-*"))  # nothing half-written left
    return bundle


@pytest.mark.emulated
def test_firmware_talking_forever_stops_at_the_capture_limit(tmp_path: Path) -> None:
    project, built = fixture_build("chatter_engine")
    limit = 256 * 1024
    runner = QemuRunner(project.board, timeout=300, max_capture=limit)
    error, peak = _peak_bytes(lambda: run_and_record(runner, built.elf, tmp_path,
                                                     engine="chatter"))
    assert isinstance(error, RunError)
    assert error.message == ("the firmware sent more than the capture limit of 262,144 bytes "
                             "before its END record")
    assert error.hint.startswith("it prints in a loop or far too much: print less")
    capture = (_failed_bundle(error) / "capture.bin").read_bytes()
    assert len(capture) == limit  # the first bytes, not a byte more
    assert capture.startswith(b"@HPX 0 START ") and b"chatter: this firmware prints" in capture
    assert peak < 4 * limit  # the stream held at most a few times, no object per byte


@pytest.mark.emulated
def test_a_timed_out_stream_is_never_held_as_many_small_pieces(tmp_path: Path) -> None:
    project, built = fixture_build("chatter_engine")
    runner = QemuRunner(project.board, timeout=3)
    error, peak = _peak_bytes(lambda: run_and_record(runner, built.elf, tmp_path,
                                                     engine="chatter"))
    assert isinstance(error, RunError)
    assert error.message == "the firmware did not finish within 3 s on qemu-m55"
    capture = (_failed_bundle(error) / "capture.bin").read_bytes()
    assert b"chatter: this firmware prints" in capture
    # QEMU writes the UART a character at a time; read through a pipe, each read was an
    # object of its own (tens of bytes per byte captured). Here the stream is held whole.
    assert peak < 3 * len(capture) + 1024 * 1024


def test_the_capture_limit_is_stated_where_the_run_is_described() -> None:
    repo = Path(__file__).resolve().parents[2]
    assert MAX_CAPTURE == 64 * 1024 * 1024
    for doc in ("README.md", "docs/wire-protocol.md", "docs/apollo-boards.md"):
        assert "64 MiB" in (repo / doc).read_text("utf-8"), doc
