"""``hpx doctor``: is everything the pipeline's stages need installed, and which versions?"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import Board, all_boards
from hpx_core.errors import HpxError
from hpx_core.firmware.launcher import ENV, OFF, check_cache_dir, find_compiler_cache
from hpx_core.firmware.toolchain import detect_toolchains
from hpx_core.plugins import Registry
from hpx_core.probe.route import JLINK_SOFTWARE, ProbeDesk, attached_desk, route_lines
from hpx_core.sources import package_status
from hpx_core.tool_version import version_line


@attrs.frozen
class Check:
    """One thing hpx may need, whether it is there, and whether this run needs it."""

    name: str
    ok: bool
    detail: str
    required: bool


@attrs.frozen
class DoctorReport:
    """All checks; ``healthy`` is false when something required is missing."""

    checks: tuple[Check, ...]

    @property
    def healthy(self) -> bool:
        return all(c.ok for c in self.checks if c.required)


# tool name -> (arguments that print its version, the tool's role)
_TOOLS: dict[str, tuple[Sequence[str], str]] = {
    "git": (["--version"], "sources"),
    "cmake": (["--version"], "build"),
    "ninja": (["--version"], "build"),
    "qemu-system-arm": (["--version"], "emulated"),
}


def run_doctor(
    reg: Registry, *, toolchain: str, emulated: bool | None, engine: str | None = None,
    board: Board | None = None, desk: ProbeDesk | None = None, power: Any | None = None,
) -> DoctorReport:
    """Check Python, plugins, tools and engine packages; ``required`` follows the config.

    ``emulated`` is None when no board was chosen: then QEMU is reported but not required;
    an engine's Python packages (a model compiler) are required when that engine is chosen.
    The probe software and every attached probe are listed with the way a run would reach
    the part (``board``'s, else every silicon board's) and what that way lacks; ``desk`` is
    what is attached (default: this machine's). Power instruments are listed through their
    driver (``power``: a driver to ask; default: the installed one), never required.
    """
    checks = [_python_check(), *_plugin_checks(reg), *_package_checks(reg, engine)]
    for tool, (args, role) in _TOOLS.items():
        required = role in ("sources", "build") or (role == "emulated" and bool(emulated))
        checks.append(_tool_check(tool, args, required))
    checks += _toolchain_checks(toolchain)
    checks.append(_compiler_cache_check())
    checks.append(_labgrid_check())
    checks.append(_power_check(power))
    checks += _probe_checks(desk or attached_desk(), board)
    return DoctorReport(tuple(checks))


def _probe_checks(desk: ProbeDesk, board: Board | None) -> list[Check]:
    """pyocd, J-Link's software and each attached probe's route; required for a silicon
    board only, J-Link's software for a board whose EVB is reached through its J-Link."""
    silicon = board is not None and board.silicon is not None
    checks = [
        Check("pyocd", desk.pyocd is not None, desk.pyocd or f"not importable ({desk.error})",
              silicon),
        _jlink_check(desk, board),
    ]
    if not desk.probes:
        why = f"pyocd could not list probes: {desk.error}" if desk.error else "none attached"
        return [*checks, Check("probes", False, f"{why} (a run on a board stops after the "
                                                "build)", False)]
    boards = [board] if silicon and board is not None else list(all_boards().values())
    for line in route_lines(desk, boards):
        checks.append(Check(f"probe {line.probe.unique_id}", not line.route.missing,
                            line.detail(), silicon))
    return checks


def _jlink_check(desk: ProbeDesk, board: Board | None) -> Check:
    """SEGGER's J-Link software: required for a board with a J-Link device name, whose EVB's
    on-board J-Link takes the J-Link path (a CMSIS-DAP probe with --pack needs none)."""
    needed = board is not None and board.silicon is not None and bool(board.silicon.jlink_device)
    if desk.jlink is not None:
        return Check("J-Link software", True, desk.jlink, needed)
    why = (f"{board.name}'s on-board J-Link flashes and resets the part through it"
           if needed and board is not None else
           "pyocd and hpx cannot see J-Link probes (the EVBs' own) without it")
    return Check("J-Link software", False, f"not found: {why}; install the {JLINK_SOFTWARE} "
                 "(its J-Link library and J-Link Commander, JLinkExe)", needed)


def _python_check() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("python", ok, platform.python_version(), required=True)


def _plugin_checks(reg: Registry) -> list[Check]:
    checks = [
        Check(f"engine {name}", True, f"{e.plugin.distribution} {e.plugin.version}", False)
        for name, e in sorted(reg.engines.items())
    ]
    checks += [
        Check(f"plugin {f.plugin.name}", False, f"skipped: {f.reason}", False) for f in reg.failures
    ]
    checks += [
        Check(f"engine {name}", False, "declared by several plugins", False)
        for name in sorted(reg.conflicts)
    ]
    if not reg.engines:
        checks.append(Check("engines", False, "no engine plugin installed", True))
    return checks


def _package_checks(reg: Registry, engine: str | None) -> list[Check]:
    catalog = reg.catalog
    needed = catalog.packages_for(engine) if engine and engine in catalog.engines else ()
    checks = []
    for _name, pin in sorted(catalog.packages.items()):
        status = package_status(pin)
        required = pin in needed
        if status.installed is None:
            detail = f"not installed; {status.install_command}"
        elif not status.ok:
            detail = f"{status.installed} is below the minimum {status.min_version}"
        else:
            detail = status.installed
        checks.append(Check(f"package {status.distribution}", status.ok, detail, required))
    return checks


def _tool_check(tool: str, args: Sequence[str], required: bool) -> Check:
    path = shutil.which(tool)
    if path is None:
        return Check(tool, False, "not found on PATH", required)
    return Check(tool, True, f"{_version_line(path, args)} ({path})", required)


def _toolchain_checks(chosen: str) -> list[Check]:
    """Every toolchain with its version, or the reason it cannot build (and what to install)."""
    checks = []
    for name, found in detect_toolchains().items():
        if found.available:
            detail = f"{found.version} ({found.compiler})"
        else:
            prefix = "" if found.reason.startswith("not supported") else "not available: "
            detail = f"{prefix}{found.reason}" + (f"; {found.hint}" if found.hint and
                                                   name == chosen else "")
        checks.append(Check(f"toolchain {name}", found.available, detail, name == chosen))
    return checks


def _compiler_cache_check() -> Check:
    """ccache speeds up every library and app build; hpx uses the user's own configuration."""
    cache = find_compiler_cache()
    if cache is None:
        why = (f"turned off ({ENV})" if os.environ.get(ENV, "").strip().lower() in OFF
               else "not found: builds compile everything (apt-get install ccache, or the "
               "hpx-core[ccache] extra)")
        return Check("ccache", False, why, False)
    try:
        check_cache_dir(cache)
    except HpxError as error:
        return Check("ccache", False, f"{error.message}; {error.hint}", True)
    remote = _ccache_setting(cache.path, "remote_storage")
    folder = _ccache_setting(cache.path, "cache_dir")
    where = f"cache {folder}" if folder else "its default cache"
    shared = "; remote storage configured" if remote else ""
    return Check("ccache", True, f"{cache.describe()}: {where}{shared}", False)


def _ccache_setting(path: Path, key: str) -> str:
    """One ccache setting (``ccache --get-config``); empty when unset or unreadable."""
    try:
        done = subprocess.run([str(path), "--get-config", key], capture_output=True, text=True,
                              timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _labgrid_check() -> Check:
    """labgrid, for board farms (``target.place``): optional, never required here."""
    try:
        version = metadata.version("labgrid")
    except metadata.PackageNotFoundError:
        return Check("labgrid", False, 'not installed (board farms: pip install '
                     '"hpx-core[labgrid]")', False)
    return Check("labgrid", True, f"{version} (board farms)", False)


def _power_check(driver: Any | None) -> Check:
    """The Joulescopes attached, through their maker's driver (the ``hpx-core[power]``
    extra): optional, never required here."""
    from hpx_core.errors import PowerError
    from hpx_core.power.joulescope import instruments, load_driver

    name = "power instruments"
    try:
        opened = driver if driver is not None else load_driver()()
    except PowerError:
        return Check(name, False, 'driver not installed (energy: pip install '
                     '"hpx-core[power]")', False)
    except Exception as error:  # the driver's own start-up (no USB access, say)
        return Check(name, False, f"the driver did not start ({error})", False)
    try:
        found = instruments(opened)
    finally:
        if driver is None:
            opened.finalize()
    return Check(name, bool(found), ", ".join(found) or "none attached (Joulescope by USB)",
                 False)


def _version_line(path: str, args: Sequence[str]) -> str:
    first = version_line(path, *args, timeout=20)
    if first is None:
        return "version unknown"
    match = re.search(r"\d+\.\d+(\.\d+)?", first)
    return match.group(0) if match else first[:60]
