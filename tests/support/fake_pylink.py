"""A fake of the pylink surface hpx's J-Link path uses, on the fake pyocd's bench and target.

pylink drives SEGGER's J-Link library: ``JLink().open(serial_no)``, ``set_tif``, ``connect``
with a device name from J-Link's device list (``get_device_index`` refuses a name the list
lacks), memory access, ``reset(halt=False)``, ``flash(data, addr)`` (J-Link's flash loader for
the named device) and ``close`` (the debugger lets go). The target behind it is the fake
pyocd's FakeTarget, so the bootloader, RAM and RTT behave the same on both paths.
"""

from __future__ import annotations

import types
from typing import Any

import attrs
from fake_pyocd import Bench


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
            if halt:
                target.halt()
            return 0

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
            self._target().state = self._target().state.__class__.HALTED
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
