"""SEGGER J-Link's own device support, through pylink, in the shape of the pyocd API.

The probe runner speaks pyocd's names (ConnectHelper, Session, Target, FileProgrammer): this
module answers them with pylink, so the J-Link path is the same runner, the same RTT reader
and the same handoff as pyocd's. What differs is what J-Link brings: it knows the Apollo parts
by their J-Link device names, flashes their MRAM with SEGGER's own loader (``JLink.flash``
writes through J-Link's flash download, as `loadfile` in J-Link Commander does), and resets
them the way its device support says. pyocd's own J-Link probe (``jlink.device``) would still
flash with pyocd's algorithm from a pack, which is why this path bypasses pyocd.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from hpx_core.probe.pyocd_api import PyocdApi

DHCSR = 0xE000EDF0  # the core's Debug Halting Control and Status Register
S_HALT = 1 << 17
S_LOCKUP = 1 << 19


class JLinkDeviceError(Exception):
    """J-Link's device list does not name the part (the J-Link Software is too old)."""


@attrs.frozen
class _State:
    name: str


@attrs.frozen
class _Target:
    link: Any  # pylink.JLink, connected
    error: type[Exception]  # pylink.errors.JLinkException

    def read_memory_block8(self, addr: int, size: int) -> list[int]:
        return list(self.link.memory_read8(addr, size))

    def read32(self, addr: int) -> int:
        return int(self.link.memory_read32(addr, 1)[0])

    def write32(self, addr: int, value: int) -> None:
        self.link.memory_write32(addr, [value])

    def reset(self, reset_type: Any = None) -> None:
        self.link.reset(ms=0, halt=False)  # J-Link's reset for the device, then go

    def halt(self) -> None:
        self.link.halt()

    def resume(self) -> None:
        """Let a halted core run (pylink's ``restart``, J-Link's go; Ambiq's profiler's
        ``resume_if_halted`` calls the same after every attach)."""
        self.link.restart()

    def get_state(self) -> _State:
        """The core's state from DHCSR, as pyocd reads it (pylink's ``halted()`` cannot tell
        a locked-up core from a running one); ``halted()`` when DHCSR cannot be read."""
        try:
            status = self.read32(DHCSR)
        except self.error:
            return _State("HALTED" if self.link.halted() else "RUNNING")
        if status & S_LOCKUP:
            return _State("LOCKUP")
        return _State("HALTED" if status & S_HALT else "RUNNING")

    def read_core_register(self, reg: str) -> int:
        wanted = reg.upper()
        for index in self.link.register_list():
            name = str(self.link.register_name(index)).upper()
            if wanted in name.replace("(", " ").replace(")", " ").split():
                return int(self.link.register_read(index))
        raise self.error(f"J-Link names no register {reg}")


@attrs.define
class _Session:
    pylink: Any
    serial: str
    device: str
    options: dict[str, Any]
    link: Any = None

    @property
    def target(self) -> _Target:
        return _Target(self.link, self.pylink.errors.JLinkException)

    def open(self, init_board: bool = True) -> None:
        link = self.pylink.JLink()
        link.open(serial_no=int(self.serial))
        self.link = link
        link.disable_dialog_boxes()
        link.set_tif(self.pylink.enums.JLinkInterfaces.SWD)
        try:
            link.get_device_index(self.device)
        except self.pylink.errors.JLinkException as error:
            raise JLinkDeviceError(str(error)) from None
        link.connect(self.device, speed="auto")

    def close(self) -> None:
        if self.link is not None:
            self.link.close()  # the debugger lets go of the part
        self.link = None


@attrs.frozen
class _ProbeRecord:
    unique_id: str
    description: str
    vendor_name: str = "Segger"
    product_name: str = "J-Link"


@attrs.frozen
class _ConnectHelper:
    pylink: Any
    device: str

    def get_all_connected_probes(self, blocking: bool = True, unique_id: str | None = None,
                                 print_wait_message: bool = True) -> list[_ProbeRecord]:
        found = self.pylink.JLink().connected_emulators()
        return [_ProbeRecord(str(e.SerialNumber), "Segger J-Link") for e in found]

    def session_with_chosen_probe(self, blocking: bool = True, return_first: bool = False,
                                  unique_id: str | None = None, auto_open: bool = True,
                                  options: dict[str, Any] | None = None,
                                  **kwargs: Any) -> _Session:
        return _Session(self.pylink, unique_id or "", self.device, dict(options or {}))


def load_image(elf: Path) -> list[tuple[int, bytes]]:
    """What a loader writes: (physical address, bytes) of each PT_LOAD segment with file
    content, adjacent segments joined (one flash download each)."""
    import lief

    binary = lief.ELF.parse(str(elf))
    if binary is None:
        return []
    parts = sorted((s.physical_address, bytes(s.content)[: s.physical_size])
                   for s in binary.segments
                   if s.type == lief.ELF.Segment.TYPE.LOAD and s.physical_size > 0)
    joined: list[tuple[int, bytes]] = []
    for address, data in parts:
        if joined and joined[-1][0] + len(joined[-1][1]) == address:
            joined[-1] = (joined[-1][0], joined[-1][1] + data)
        else:
            joined.append((address, data))
    return joined


@attrs.frozen
class _FileProgrammer:
    session: _Session

    def program(self, file_or_path: str, file_format: str | None = None, **kwargs: Any) -> None:
        for address, data in load_image(Path(file_or_path)):
            self.session.link.flash(data, address)


def jlink_api(device: str, pylink: Any, version: str = "unknown") -> PyocdApi:
    """The pyocd-shaped API over pylink for the part J-Link calls ``device``; ``version``
    is the J-Link library's."""
    return PyocdApi(_ConnectHelper(pylink, device), _FileProgrammer,
                    pylink.errors.JLinkException, JLinkDeviceError, version=f"J-Link {version}")
