"""A tool's version line is asked once per process, or once per installed binary when kept; a
changed binary is asked again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hpx_core import tool_version
from hpx_core.tool_version import version_line


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HPX_CACHE_DIR", str(tmp_path / "cache"))
    tool_version._answer.cache_clear()


def _tool(tmp_path: Path, body: str) -> tuple[Path, Path]:
    """A script that appends a line to its log each time it runs, then runs ``body``."""
    log = tmp_path / "asked.log"
    tool = tmp_path / "tool"
    tool.write_text(f"#!/bin/sh\necho asked >> {log}\n{body}\n", encoding="utf-8")
    tool.chmod(0o755)
    return tool, log


def _asked(log: Path) -> int:
    return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


def test_a_binary_is_asked_once_across_processes_until_it_changes(tmp_path: Path) -> None:
    tool, log = _tool(tmp_path, 'echo "tool version 1.2.3"; echo "more"')
    assert version_line(tool, keep=True) == "tool version 1.2.3"
    tool_version._answer.cache_clear()  # another process: only the kept answer remembers
    assert version_line(tool, keep=True) == "tool version 1.2.3"
    assert _asked(log) == 1
    tool.write_text(tool.read_text(encoding="utf-8").replace("1.2.3", "1.3.0"), "utf-8")
    os.utime(tool, ns=(1, 1))  # an upgrade: another size, time and perhaps inode
    assert version_line(tool, keep=True) == "tool version 1.3.0"
    assert _asked(log) == 2


def test_without_keep_a_process_asks_once_and_writes_nothing(tmp_path: Path) -> None:
    tool, log = _tool(tmp_path, 'echo "tool 2.0"')
    assert version_line(tool) == version_line(tool) == "tool 2.0"
    assert _asked(log) == 1
    assert not (tmp_path / "cache").exists()  # the checks before a run write nothing


def test_the_error_stream_answers_when_the_output_is_empty(tmp_path: Path) -> None:
    tool, _ = _tool(tmp_path, 'echo "tool 9.1" >&2')
    assert version_line(tool, "-V") == "tool 9.1"


def test_a_tool_that_fails_or_is_missing_has_no_version_and_nothing_is_kept(
    tmp_path: Path
) -> None:
    tool, log = _tool(tmp_path, 'echo "usage: tool"; exit 2')
    assert version_line(tool, keep=True) is None
    tool_version._answer.cache_clear()
    assert version_line(tool, keep=True) is None
    assert _asked(log) == 2  # a failure is asked again: it may be transient
    assert version_line(tmp_path / "absent") is None
