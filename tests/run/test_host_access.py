"""Firmware gets no way to the host: a hostile ELF built from the harness tries semihosting
(run a command, write a file, read a file outside its folder) on a real emulated board."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from emulated_firmware import FIXTURES, build, require_tools

from hpx_core.contract import FirmwareContribution
from hpx_core.errors import RunError
from hpx_core.run import run_and_record
from hpx_core.runners import runner_for

pytestmark = pytest.mark.emulated

SECRET = b"the host's secret\n"


def _hostile(work: Path, board: str, call: int, **paths: Path | str) -> Path:
    """The hostile engine built for ``board`` with attempt ``call`` and its host paths."""
    require_tools()
    defines = "".join(f'#define HOSTILE_{name.upper()} "{value}"\n'
                      for name, value in paths.items())
    text = f"#define HOSTILE_CALL {call}\n{defines}" + (
        FIXTURES / "hostile_engine.c").read_text("utf-8")
    glue = FirmwareContribution(files={"hostile_engine.c": text}, sources=("hostile_engine.c",))
    return build(work, board, glue, "hostile_engine")[1].elf


def _run_refused(elf: Path, board: str, results: Path) -> dict[str, object]:
    """The run fails saying the firmware tried to reach the host; its failed bundle's summary."""
    from hpx_core.boards import get_board

    with pytest.raises(RunError, match="tried to reach the host") as caught:
        run_and_record(runner_for(get_board(board)), elf, results, engine="hostile_engine")
    assert "in hpx_fixture_reach_host" in caught.value.message
    bundle = next(p for p in results.iterdir() if not p.name.startswith("."))
    summary: dict[str, object] = json.loads((bundle / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["validity"] == "invalid"
    return summary


@pytest.mark.parametrize("board", ["qemu-m55", "qemu-m4"])
def test_a_host_command_is_never_run(tmp_path: Path, board: str) -> None:
    ran = tmp_path / "ran"
    elf = _hostile(tmp_path / "w", board, 1, command=f"touch {ran}")
    _run_refused(elf, board, tmp_path / "results")
    assert not ran.exists()


def test_no_host_file_is_written(tmp_path: Path) -> None:
    written = tmp_path / "written.txt"
    elf = _hostile(tmp_path / "w", "qemu-m55", 2, write_path=written)
    _run_refused(elf, "qemu-m55", tmp_path / "results")
    assert not written.exists()


def test_no_host_file_outside_the_work_folder_is_read(tmp_path: Path) -> None:
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_bytes(SECRET)
    elf = _hostile(tmp_path / "w", "qemu-m55", 3, read_path=secret)
    results = tmp_path / "results"
    _run_refused(elf, "qemu-m55", results)
    assert not any(SECRET.strip() in p.read_bytes() for p in results.rglob("*") if p.is_file())
