"""Resetting an Apollo part through SEGGER J-Link Commander, the way Ambiq's tools do.

The Apollo parts' secure bootloader starts the application only once the debugger that reset
the part has let go. Ambiq's profiler resets with a J-Link Commander subprocess running
``r`` / ``g`` / ``exit`` (its ``target/probe/jlink.py``: Commander's exit releases the probe,
which pylink's in-process ``reset()`` does not), and neuralSPOT's ``make reset`` and
``make deploy`` run Commander too. hpx does the same on the J-Link path when it finds
Commander (``JLinkExe``, ``JLink.exe`` on Windows): on ``PATH``, else beside the J-Link library
pylink loads, which is where SEGGER's installer puts both. Without Commander the part is
reset through pylink, and ``run.json`` says which reset ran and why.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import Board
from hpx_core.errors import RunError
from hpx_core.probe.route import JLINK, JLINK_SOFTWARE, Route

COMMANDER = "J-Link Commander"
NAMES = ("JLinkExe", "JLink.exe")
RESET_SCRIPT = "r\ng\nexit\n"  # reset, go, exit: Ambiq's profiler's reset_target
TIMEOUT = 15.0  # Ambiq's profiler's budget for one Commander run
SPEED_KHZ = 4000  # Ambiq's profiler's and neuralSPOT's SWD speed
_FAILED = ("cannot connect", "could not connect", "error:", "failed")

COMMANDER_RESET = "commander"
PYLINK_RESET = "pylink"
PYOCD_RESET = "pyocd"


@attrs.frozen
class ResetWay:
    """Which reset a run makes (``commander``, ``pylink`` or ``pyocd``), why, and the
    Commander it runs when it runs one."""

    name: str
    why: str
    commander: Path | None = None


def _library_folders(pylink: Any) -> Iterator[Path]:
    """The folders pylink looks for SEGGER's J-Link library in (pylink.library.Library)."""
    library = getattr(getattr(pylink, "library", None), "Library", None)
    finder = {"darwin": "find_library_darwin", "win32": "find_library_windows"}.get(
        sys.platform, "find_library_linux")
    try:
        for found in getattr(library, finder)():
            yield Path(found).parent
    except Exception:  # pylink's search walks folders that may be absent or unreadable
        return


def find_commander(pylink: Any | None) -> Path | None:
    """J-Link Commander: on PATH, else beside the J-Link library pylink finds."""
    for name in NAMES:
        found = shutil.which(name)
        if found:
            return Path(found)
    if pylink is None:
        return None
    for folder in _library_folders(pylink):
        for name in NAMES:
            if (folder / name).is_file():
                return folder / name
    return None


def reset_way(board: Board, route: Route, commander: Path | None) -> ResetWay:
    """Commander's reset for an Apollo part on the J-Link path when Commander is there,
    else the reset of the path's own software."""
    if route.path != JLINK:
        return ResetWay(PYOCD_RESET, "the pyocd path resets through pyocd")
    family = board.silicon.family if board.silicon is not None else ""
    if family != "apollo":
        return ResetWay(PYLINK_RESET, f"a {family or 'non-Apollo'} part: reset through pylink")
    if commander is None:
        return ResetWay(PYLINK_RESET, f"{COMMANDER} (JLinkExe) not found: reset through pylink, "
                        "after which the Apollo bootloader may keep holding the core")
    return ResetWay(COMMANDER_RESET, f"{COMMANDER} r/g/exit: the debugger lets go between the "
                    "reset and the application's start, as the Apollo bootloader needs",
                    commander)


def commander_command(exe: Path, device: str, serial: str) -> list[str]:
    """Commander's arguments: the part, SWD at Ambiq's profiler's speed, the chosen probe."""
    return [str(exe), "-NoGui", "1", "-Device", device, "-If", "SWD", "-Speed",
            str(SPEED_KHZ), "-AutoConnect", "1", "-SelectEmuBySN", serial]


def _failure(output: str) -> str:
    """Commander's own line saying what failed, or its last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if any(word in line.lower() for word in _FAILED):
            return line
    return lines[-1] if lines else "no output"


def commander_reset(exe: Path, device: str, serial: str, *, timeout: float = TIMEOUT) -> None:
    """Reset the part, let it run and let go of it (Commander's ``r``, ``g``, ``exit``)."""
    hint = (f"check the probe's cable and that no other J-Link program holds probe {serial}; "
            f"{COMMANDER} comes with the {JLINK_SOFTWARE}")
    try:
        done = subprocess.run(commander_command(exe, device, serial), input=RESET_SCRIPT,
                              capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RunError(f"{COMMANDER} ({exe.name}) did not reset {device} within "
                       f"{timeout:g} s", hint) from None
    except OSError as error:
        raise RunError(f"{COMMANDER} ({exe}) could not be run: {error.strerror}",
                       hint) from None
    output = f"{done.stdout}\n{done.stderr}"
    if done.returncode != 0 or "cannot connect" in output.lower():
        raise RunError(f"{COMMANDER} could not reset {device} through probe {serial} "
                       f"(exit {done.returncode}): {_failure(output)}", hint)
