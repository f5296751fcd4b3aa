"""An in-process tool's output goes to the run's log, none of it to the terminal.

Each case writes the way tools do: ``print``, a logger with its own handler, a rich console,
``warnings``, C-level writes to fds 1 and 2, and a child process. ``capfd`` holds what reached
the process's real stdout and stderr.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest
from rich.console import Console

from hpx_core.sdk.enginelib import tool_output_to


def noisy_tool() -> None:
    print("print to stdout")
    print("print to stderr", file=sys.stderr)
    Console().print("[bold]rich console[/]")
    logging.getLogger("noisy_tool.step").warning("a logged warning")
    warnings.warn("a python warning from the tool", UserWarning, stacklevel=1)
    os.write(1, b"C-level stdout\n")
    os.write(2, b"C-level stderr\n")
    subprocess.run([sys.executable, "-c", "print('child process')"], check=True)


@pytest.fixture
def tool_logger() -> logging.Logger:
    """A logger set up the way heliaAOT sets up its own: a handler, no propagation."""
    logger = logging.getLogger("noisy_tool")
    handler = logging.StreamHandler(sys.stderr)
    logger.addHandler(handler)
    logger.propagate = False
    yield logger
    logger.removeHandler(handler)
    logger.propagate = True


def test_everything_the_tool_prints_goes_to_the_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], tool_logger: logging.Logger
) -> None:
    log = tmp_path / "work" / "run.log"
    with tool_output_to(log, "noisy 1.0"):
        noisy_tool()
    printed = capfd.readouterr()
    assert printed.out == "" and printed.err == ""
    text = log.read_text()
    assert text.startswith("--- noisy 1.0, ")
    for line in ("print to stdout", "print to stderr", "rich console", "a logged warning",
                 "a python warning from the tool", "C-level stdout", "C-level stderr",
                 "child process"):
        assert line in text, line
    assert "[bold]" not in text, "rich renders markup, without colour codes in a file"


def test_the_terminal_is_the_terminal_again_afterwards(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], tool_logger: logging.Logger
) -> None:
    handlers = list(tool_logger.handlers)
    with tool_output_to(tmp_path / "run.log", "noisy"):
        late = logging.StreamHandler()  # bound to sys.stderr as it is inside the block
        logging.getLogger("late_tool").addHandler(late)
    try:
        assert tool_logger.handlers == handlers
        print("hpx speaks")
        logging.getLogger("late_tool").error("still works")
        os.write(1, b"fd 1 is back\n")
        printed = capfd.readouterr()
        assert printed.out == "hpx speaks\nfd 1 is back\n"
        assert printed.err == "still works\n"
    finally:
        logging.getLogger("late_tool").removeHandler(late)
    assert "hpx speaks" not in (tmp_path / "run.log").read_text()


def test_a_failing_tool_leaves_its_traceback_in_the_log(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "run.log"
    with pytest.raises(ValueError, match="the tool gave up"), tool_output_to(log, "noisy"):
        print("working")
        raise ValueError("the tool gave up")
    assert capfd.readouterr() == ("", "")
    text = log.read_text()
    assert "working" in text and "Traceback (most recent call last)" in text
    assert "ValueError: the tool gave up" in text


def test_other_threads_keep_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "run.log"
    with tool_output_to(log, "noisy"):
        progress = threading.Thread(target=lambda: print("progress display"))
        progress.start()
        progress.join()
        print("tool output")
    assert capfd.readouterr().out == "progress display\n"
    assert "tool output" in log.read_text() and "progress display" not in log.read_text()


def test_two_tools_share_one_log(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    for tool in ("first", "second"):
        with tool_output_to(log, tool):
            print(f"{tool} output")
    text = log.read_text()
    assert text.index("--- first") < text.index("first output") < text.index("--- second")
