"""Host side of SEGGER RTT: find the control block in target RAM and drain an up-channel.

hpx's own reader of the documented layout (the firmware side is
firmware_templates/transport/rtt/hpx_rtt.c): a 16-byte ID "SEGGER RTT", the numbers of up and
down buffers (int32 each), then 24-byte buffer descriptors
``{sName, pBuffer, SizeOfBuffer, WrOff, RdOff, Flags}``. The target advances WrOff; the host
reads the bytes between RdOff and WrOff and then advances RdOff, so the firmware can reuse them.
hpx's firmware keeps one more word right after the descriptors: the bytes it dropped because
the host fell behind while a measurement was running (:func:`dropped_bytes`).
Memory is anything with pyocd's ``read_memory_block8`` and ``write32``: a pyocd Target, the
J-Link path's pylink target, a farm's remote target, or a ``MemoryImage`` of a RAM dump.

Why not pyocd's own reader (``pyocd.debug.rtt``, pyocd 0.46): it takes a pyocd SoCTarget
(``read32``, ``read_memory_block32``, ``get_memory_map``), which the J-Link path and RAM dumps
are not; it searches one range (by default pyocd's RAM region, which it does not know for an
Apollo part without the pack) where a board has several data regions; it takes the ID at any
byte offset, where hpx requires the aligned address the firmware's struct has, and checks
neither the header nor the buffer counts; and it reads each descriptor once, so after a reset
(a new firmware's block, or a stale one left in RAM) it keeps reading the old buffer at the old
offsets. hpx must notice exactly that (:class:`UpReader` refuses a buffer that moved).
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
CLEAR_CHUNK = 0x10000  # a whole-RAM sweep before reset: fewer, larger reads


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


def _aligned_ids(mem: Memory, ranges: Iterable[tuple[int, int]],
                 step: int = SCAN_CHUNK) -> Iterable[int]:
    """Every 4-byte aligned address in ``ranges`` holding the control block's ID, read
    ``step`` bytes at a time (each read overlaps the next by an ID's length)."""
    for start, length in ranges:
        offset = 0
        while offset < length:
            size = min(step + len(RTT_ID), length - offset)
            chunk = _read(mem, start + offset, size)
            found = chunk.find(RTT_ID)
            while found >= 0:
                if found < step and (start + offset + found) % 4 == 0:
                    yield start + offset + found
                found = chunk.find(RTT_ID, found + 1)
            offset += step


def clear_control_blocks(
    mem: Memory, ranges: Iterable[tuple[int, int]], *, address: int | None = None
) -> tuple[int, ...]:
    """Zero the ID of every control block an earlier run left in RAM; the addresses cleared.

    Apollo parts keep SRAM across a reset, and the secure bootloader runs before the new
    firmware's start-up zeroes ``.bss``: until then the old block (with its unread bytes, even
    an old END record) is where the new one will be. With its ID gone the host waits for the
    new firmware to write it. ``address`` (the ELF's ``_SEGGER_RTT``) is the only place looked
    at when known; else every aligned ID in ``ranges``.
    """
    if address is not None:
        found = [address] if _read(mem, address, len(RTT_ID)) == RTT_ID else []
    else:
        found = list(_aligned_ids(mem, ranges, CLEAR_CHUNK))
    for block in found:
        for word in range(0, len(RTT_ID), 4):
            mem.write32(block + word, 0)
    return tuple(found)


def dropped_bytes(mem: Memory, block: ControlBlock) -> int:
    """hpx's word after the descriptors: bytes the firmware dropped because the up-buffer was
    full while a measurement ran (it never waits for the host then)."""
    where = block.address + HEADER.size + DESCRIPTOR.size * (block.max_up + block.max_down)
    return int(struct.unpack("<I", _read(mem, where, 4))[0])


def find_control_block(
    mem: Memory, ranges: Iterable[tuple[int, int]], *, address: int | None = None
) -> ControlBlock:
    """Look at ``address`` (the ELF's ``_SEGGER_RTT``) if known, else scan ``ranges``."""
    if address is not None:
        return read_control_block(mem, address)
    ranges = tuple(ranges)
    for found in _aligned_ids(mem, ranges):
        return read_control_block(mem, found)
    scanned = [f"{start:#010x}+{length:#x}" for start, length in ranges]
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
