"""A fake of the pylink surface hpx's J-Link path uses, on the fake pyocd's bench and target.

pylink drives SEGGER's J-Link library: ``JLink().open(serial_no)``, ``set_tif``, ``connect``
with a device name from J-Link's device list (``get_device_index`` refuses a name the list
lacks), memory access, ``reset(halt=False)``, ``flash(data, addr)`` (J-Link's flash loader for
the named device) and ``close`` (the debugger lets go). The target behind it is the fake
pyocd's FakeTarget, so the bootloader, RAM and RTT behave the same on both paths.

What the Apollo parts do through J-Link, the fake does too: ``connect`` is refused for a while
after a reset (``Firmware.boot_refusals``) and may leave the core halted
(``Firmware.halts_on_attach``; ``restart`` lets it go), and pylink's in-process ``reset()``
leaves the secure bootloader holding the core (``pylink_reset_holds``), while J-Link
Commander's ``r``/``g``/``exit`` lets it go. Commander is a separate program:
:func:`install_commander` writes a fake ``JLinkExe`` that logs what it was asked, and the fake
library plays that log onto the target the next time it is opened (a Commander run ends
before hpx opens the probe again, so the part cannot tell the difference).
"""

from __future__ import annotations

import json
import stat
import sys
import types
from pathlib import Path
from typing import Any

import attrs
from fake_pyocd import Bench, State

DHCSR = 0xE000EDF0


class FakeJLinkError(Exception):
    """Stands for pylink.errors.JLinkException."""


@attrs.define
class Emulator:
    SerialNumber: int  # pylink's JLinkConnectInfo field name


@attrs.define
class Library:
    """What the fake J-Link library knows and what it did."""

    bench: Bench
    devices: set[str]
    connected: list[str] = attrs.field(factory=list)  # device names, one per connect
    flashed: list[tuple[int, bytes]] = attrs.field(factory=list)
    closed: int = 0
    pylink_reset_holds: bool = True  # pylink's reset() does not hand off to the application
    refused: int = 0  # connects refused
    restarts: int = 0
    resets: list[str] = attrs.field(factory=list)  # "pylink" or "commander", in order
    commander: Path | None = None  # the folder of the fake JLinkExe, once installed
    commands: list[dict[str, Any]] = attrs.field(factory=list)  # Commander runs played

    def play_commander(self) -> None:
        """What the fake JLinkExe was asked since last time, done to the target."""
        if self.commander is None or not (self.commander / "commander.log").is_file():
            return
        lines = (self.commander / "commander.log").read_text().splitlines()
        for line in lines[len(self.commands):]:
            run = json.loads(line)
            self.commands.append(run)
            if run["exit"] == 0:
                self._commander_script(run["script"].split())

    def _commander_script(self, commands: list[str]) -> None:
        target = self.bench.target
        target.attach()  # -AutoConnect 1
        for command in commands:
            if command == "r":
                target.reset()
                self.resets.append("commander")
            elif command == "g":
                target.resume()
            elif command == "exit":
                break
        target.detach()  # Commander's exit lets go of the part


def fake_pylink(bench: Bench, devices: set[str]) -> tuple[Any, Library]:
    """A module with pylink's names (JLink, errors, enums) and the library's record."""
    lib = Library(bench, devices)

    class JLink:
        version = "8.10f"

        def __init__(self) -> None:
            self._serial: int | None = None
            self._device: str | None = None

        def open(self, serial_no: int | None = None, ip_addr: str | None = None) -> None:
            ids = [int(p.unique_id) for p in lib.bench.probes]
            if serial_no not in ids:
                raise FakeJLinkError(f"No emulator with serial number {serial_no} found.")
            lib.play_commander()
            self._serial = serial_no
            lib.bench.target.attach()

        def close(self) -> None:
            if self._serial is not None:
                lib.bench.target.detach()
                lib.closed += 1
            self._serial = None

        def disable_dialog_boxes(self) -> None:
            pass

        def set_tif(self, interface: int) -> bool:
            return True

        def connected_emulators(self) -> list[Emulator]:
            return [Emulator(int(p.unique_id)) for p in lib.bench.probes]

        def get_device_index(self, chip_name: str) -> int:
            if chip_name not in lib.devices:
                raise FakeJLinkError("Unsupported device selected.")
            return 1 + sorted(lib.devices).index(chip_name)

        def connect(self, chip_name: str, speed: Any = "auto", verbose: bool = False) -> None:
            self.get_device_index(chip_name)
            if not lib.bench.target.connect():
                lib.refused += 1
                raise FakeJLinkError("Could not connect to target.")
            self._device = chip_name
            lib.connected.append(chip_name)

        def _target(self) -> Any:
            if self._serial is None or self._device is None:
                raise FakeJLinkError("J-Link is not connected to a target")
            return lib.bench.target

        def memory_read8(self, addr: int, num_bytes: int) -> list[int]:
            try:
                return list(self._target().read_memory_block8(addr, num_bytes))
            except Exception as error:  # the fake pyocd's fault becomes J-Link's
                raise FakeJLinkError(str(error)) from None

        def memory_read32(self, addr: int, num_words: int) -> list[int]:
            if addr == DHCSR:  # the core's state, as the debug port reports it
                state = self._target().get_state()
                return [{State.HALTED: 1 << 17, State.LOCKUP: 1 << 19}.get(state, 0)]
            try:
                return [self._target().read32(addr + 4 * i) for i in range(num_words)]
            except Exception as error:
                raise FakeJLinkError(str(error)) from None

        def memory_write32(self, addr: int, data: list[int]) -> int:
            for i, word in enumerate(data):
                self._target().write32(addr + 4 * i, word)
            return len(data)

        def reset(self, ms: int = 0, halt: bool = True) -> int:
            target = self._target()
            target.reset()
            target.stuck = lib.pylink_reset_holds  # the bootloader keeps the core
            lib.resets.append("pylink")
            if halt:
                target.halt()
            return 0

        def restart(self, num_instructions: int = 0, skip_breakpoints: bool = False) -> bool:
            self._target().resume()
            lib.restarts += 1
            return True

        def halt(self) -> bool:
            self._target().halt()
            return True

        def halted(self) -> bool:
            return bool(self._target().get_state().name == "HALTED")

        def register_list(self) -> list[int]:
            return list(range(16))

        def register_name(self, index: int) -> str:
            return "R15 (PC)" if index == 15 else f"R{index}"

        def register_read(self, index: int) -> int:
            assert index == 15
            return int(self._target().read_core_register("pc"))

        def flash(self, data: bytes, addr: int, on_progress: Any = None,
                  power_on: bool = False, flags: int = 0) -> int:
            self._target().state = State.HALTED
            if lib.bench.flash_error:
                raise FakeJLinkError(lib.bench.flash_error)
            lib.flashed.append((addr, bytes(data)))
            return len(data)

    module = types.SimpleNamespace(
        JLink=JLink,
        errors=types.SimpleNamespace(JLinkException=FakeJLinkError),
        enums=types.SimpleNamespace(JLinkInterfaces=types.SimpleNamespace(SWD=1)),
    )
    return module, lib


COMMANDER_SCRIPT = """#!{python}
import json, sys
from pathlib import Path

here = Path(__file__).resolve().parent
config = json.loads((here / "commander.json").read_text())
script = sys.stdin.read()
with open(here / "commander.log", "a") as log:
    log.write(json.dumps({{"argv": sys.argv[1:], "script": script,
                          "exit": config["exit"]}}) + "\\n")
sys.stdout.write(config["output"])
sys.exit(config["exit"])
"""

COMMANDER_OK = ("SEGGER J-Link Commander V8.10f (Compiled Nov 20 2024 15:27:42)\n"
                "Connecting to target via SWD\nFound SW-DP with ID 0x6BA02477\n"
                "Cortex-M55 identified.\nReset delay: 0 ms\nReset type NORMAL\n"
                "Script processing completed.\n")


def install_commander(folder: Path, lib: Library, *, exit_code: int = 0,
                      output: str = COMMANDER_OK) -> Path:
    """A fake ``JLinkExe`` in ``folder`` (the test puts it on PATH) that logs its arguments
    and script for ``lib`` to play, says ``output`` and exits with ``exit_code``."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "JLinkExe"
    exe.write_text(COMMANDER_SCRIPT.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    (folder / "commander.json").write_text(json.dumps({"exit": exit_code, "output": output}))
    lib.commander = folder
    return exe
