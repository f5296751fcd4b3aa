"""Host side of SEGGER RTT: find the control block in target RAM and drain an up-channel.

hpx's own reader of the documented layout (the firmware side is
firmware_templates/transport/rtt/hpx_rtt.c): a 16-byte ID "SEGGER RTT", the numbers of up and
down buffers (int32 each), then 24-byte buffer descriptors
``{sName, pBuffer, SizeOfBuffer, WrOff, RdOff, Flags}``. The target advances WrOff; the host
reads the bytes between RdOff and WrOff and then advances RdOff, so the firmware can reuse them.
Memory is anything with pyocd's ``read_memory_block8`` and ``write32`` (a pyocd Target, or a
``MemoryImage`` of a RAM dump).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Protocol

import attrs

from hpx_core.errors import CaptureError

RTT_ID = b"SEGGER RTT\x00\x00\x00\x00\x00\x00"
HEADER = struct.Struct("<16sii")
DESCRIPTOR = struct.Struct("<IIIIII")
MAX_BUFFERS = 32
SCAN_CHUNK = 0x1000


class Memory(Protocol):
    """The part of pyocd's target memory interface the reader uses."""

    def read_memory_block8(self, addr: int, size: int) -> Sequence[int]: ...

    def write32(self, addr: int, value: int) -> None: ...


@attrs.frozen
class MemoryImage:
    """A RAM dump at ``base`` that reads and writes like a target (for offline images)."""

    base: int
    data: bytearray

    def _span(self, addr: int, size: int) -> slice:
        start = addr - self.base
        if start < 0 or start + size > len(self.data):
            raise CaptureError(f"address {addr:#x}+{size} is outside the memory image", "")
        return slice(start, start + size)

    def read_memory_block8(self, addr: int, size: int) -> Sequence[int]:
        return list(self.data[self._span(addr, size)])

    def write32(self, addr: int, value: int) -> None:
        self.data[self._span(addr, 4)] = struct.pack("<I", value)


@attrs.frozen
class MemoryImages:
    """Several dumps (RAM, and the code memory holding the channel names) read as one."""

    images: tuple[MemoryImage, ...]

    def _image(self, addr: int, size: int) -> MemoryImage:
        for image in self.images:
            if image.base <= addr and addr + size <= image.base + len(image.data):
                return image
        raise CaptureError(f"address {addr:#x}+{size} is outside the memory images", "")

    def read_memory_block8(self, addr: int, size: int) -> Sequence[int]:
        return self._image(addr, size).read_memory_block8(addr, size)

    def write32(self, addr: int, value: int) -> None:
        self._image(addr, 4).write32(addr, value)


@attrs.frozen
class Channel:
    """One up-buffer descriptor as read from the target."""

    index: int
    descriptor: int  # address of the descriptor
    name: str
    buffer: int
    size: int
    wr_off: int
    rd_off: int
    flags: int


@attrs.frozen
class ControlBlock:
    address: int
    max_up: int
    max_down: int
    up: tuple[Channel, ...]


def _read(mem: Memory, addr: int, size: int) -> bytes:
    return bytes(mem.read_memory_block8(addr, size))


def _c_string(mem: Memory, addr: int, limit: int = 32) -> str:
    if addr == 0:
        return ""
    try:
        raw = _read(mem, addr, limit)
    except CaptureError:
        return ""
    return raw.split(b"\x00", 1)[0].decode("ascii", "replace")


def _channel(mem: Memory, address: int, index: int) -> Channel:
    name, buffer, size, wr, rd, flags = DESCRIPTOR.unpack(_read(mem, address, DESCRIPTOR.size))
    return Channel(index, address, _c_string(mem, name), buffer, size, wr, rd, flags)


def read_control_block(mem: Memory, address: int) -> ControlBlock:
    """The control block at ``address``; a CaptureError when it is not one (or is corrupt)."""
    ident, max_up, max_down = HEADER.unpack(_read(mem, address, HEADER.size))
    if ident != RTT_ID:
        raise CaptureError(
            f"no SEGGER RTT control block at {address:#010x}",
            "the firmware has not started RTT yet, or this is not an hpx image",
        )
    if not (1 <= max_up <= MAX_BUFFERS and 0 <= max_down <= MAX_BUFFERS):
        raise CaptureError(
            f"the RTT control block at {address:#010x} is corrupt "
            f"({max_up} up / {max_down} down buffers)",
            "the firmware overwrote it; rebuild and flash again",
        )
    first = address + HEADER.size
    up = tuple(_channel(mem, first + i * DESCRIPTOR.size, i) for i in range(max_up))
    for channel in up:
        if channel.size and (channel.wr_off >= channel.size or channel.rd_off >= channel.size):
            raise CaptureError(
                f"RTT up-buffer {channel.index} has offsets outside its {channel.size} bytes",
                "the firmware overwrote its RTT state; rebuild and flash again",
            )
    return ControlBlock(address, max_up, max_down, up)


def find_control_block(
    mem: Memory, ranges: Iterable[tuple[int, int]], *, address: int | None = None
) -> ControlBlock:
    """Look at ``address`` (the ELF's ``_SEGGER_RTT``) if known, else scan ``ranges``."""
    if address is not None:
        return read_control_block(mem, address)
    scanned = []
    for start, length in ranges:
        scanned.append(f"{start:#010x}+{length:#x}")
        offset = 0
        while offset < length:
            size = min(SCAN_CHUNK + len(RTT_ID), length - offset)
            found = _read(mem, start + offset, size).find(RTT_ID)
            if found >= 0 and (start + offset + found) % 4 == 0:
                return read_control_block(mem, start + offset + found)
            offset += SCAN_CHUNK
    raise CaptureError(
        f"no SEGGER RTT control block found in RAM ({', '.join(scanned)})",
        "the firmware did not start (check the flash and reset), or it does not use RTT",
    )


@attrs.define
class UpReader:
    """Drains one up-channel: each ``poll`` returns the new bytes and frees them."""

    mem: Memory
    channel: Channel

    def poll(self) -> bytes:
        now = _channel(self.mem, self.channel.descriptor, self.channel.index)
        size = now.size
        if size != self.channel.size or now.buffer != self.channel.buffer:
            raise CaptureError(
                "the RTT up-buffer moved while hpx was reading it",
                "the firmware overwrote its RTT state or was reset",
            )
        wr, rd = now.wr_off, now.rd_off
        if wr >= size or rd >= size:
            raise CaptureError("RTT offsets left the buffer", "the firmware overwrote RTT state")
        if wr == rd:
            return b""
        if wr > rd:
            data = _read(self.mem, now.buffer + rd, wr - rd)
        else:
            data = _read(self.mem, now.buffer + rd, size - rd)
            if wr:
                data += _read(self.mem, now.buffer, wr)
        self.mem.write32(self.channel.descriptor + 16, wr)  # RdOff
        return data


def open_up_channel(block: ControlBlock, name: str | None = None, index: int = 0) -> Channel:
    """The up-channel called ``name`` (or number ``index``)."""
    for channel in block.up:
        if (name is not None and channel.name == name) or (name is None and channel.index == index):
            if channel.size == 0 or channel.buffer == 0:
                break
            return channel
    raise CaptureError(
        f"the RTT control block has no usable up-channel {name or index!r}",
        "the firmware is not an hpx build (hpx writes its stream to up-channel 'hpx')",
    )
