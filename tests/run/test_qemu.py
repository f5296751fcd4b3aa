"""The QEMU runner: its command line, a real run, and a timeout."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from emulated_firmware import fixture_build, selftest_run

from hpx_core.boards import get_board
from hpx_core.errors import RunError
from hpx_core.run import qemu_argv, run_on_qemu
from hpx_core.wire import VERSION


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
