"""The RTT host reader on memory images laid out as SEGGER documents the control block."""

from __future__ import annotations

import struct

import pytest

from hpx_core.errors import CaptureError
from hpx_core.probe.rtt import (
    MemoryImage,
    UpReader,
    clear_control_blocks,
    dropped_bytes,
    find_control_block,
    open_up_channel,
    read_control_block,
)

BASE = 0x2000_0000
CB = BASE + 0x100
RING = BASE + 0x200
NAME = BASE + 0x80


def image(
    size: int = 16, wr: int = 0, rd: int = 0, ident: bytes = b"SEGGER RTT", up: int = 1
) -> MemoryImage:
    mem = MemoryImage(BASE, bytearray(0x400))
    mem.data[0x80:0x84] = b"hpx\x00"
    block = struct.pack("<16sii", ident, up, 1)
    block += struct.pack("<IIIIII", NAME, RING, size, wr, rd, 2)
    block += struct.pack("<IIIIII", NAME, 0, 0, 0, 0, 0)
    mem.data[0x100 : 0x100 + len(block)] = block
    return mem


def test_scan_finds_the_block_and_its_named_channel() -> None:
    block = find_control_block(image(), [(BASE, 0x400)])
    assert block.address == CB
    channel = open_up_channel(block, "hpx")
    assert (channel.buffer, channel.size, channel.flags) == (RING, 16, 2)


def test_reading_across_the_end_of_the_ring_frees_what_was_read() -> None:
    mem = image(size=16, wr=4, rd=12)
    mem.data[0x200:0x210] = b"EFGH........ABCD"
    reader = UpReader(mem, open_up_channel(read_control_block(mem, CB)))
    assert reader.poll() == b"ABCDEFGH"
    assert struct.unpack_from("<I", mem.data, 0x100 + 24 + 16)[0] == 4  # RdOff = WrOff
    assert reader.poll() == b""


def test_an_unaligned_id_is_not_a_control_block() -> None:
    mem = MemoryImage(BASE, bytearray(0x400))
    mem.data[0x101:0x111] = b"SEGGER RTT\x00\x00\x00\x00\x00\x00"
    with pytest.raises(CaptureError, match="no SEGGER RTT control block found"):
        find_control_block(mem, [(BASE, 0x400)])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ident": b"SEGGER RTX"}, "no SEGGER RTT control block at 0x20000100"),
        ({"up": 0}, "is corrupt (0 up / 1 down buffers)"),
        ({"wr": 16}, "offsets outside its 16 bytes"),
    ],
)
def test_a_broken_block_is_a_capture_error(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(CaptureError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_control_block(image(**kwargs), CB)  # type: ignore[arg-type]


def test_a_buffer_that_moves_while_reading_is_refused() -> None:
    mem = image()
    reader = UpReader(mem, open_up_channel(read_control_block(mem, CB)))
    mem.write32(CB + 24 + 8, 32)  # SizeOfBuffer changed under the reader
    with pytest.raises(CaptureError, match="moved while hpx was reading"):
        reader.poll()


def test_control_blocks_left_in_ram_are_cleared_before_a_reset() -> None:
    mem = image()
    mem.data[0x300:0x310] = b"SEGGER RTT\x00\x00\x00\x00\x00\x00"  # an older block, elsewhere
    assert clear_control_blocks(mem, [(BASE, 0x400)]) == (CB, BASE + 0x300)
    with pytest.raises(CaptureError, match="no SEGGER RTT control block found"):
        find_control_block(mem, [(BASE, 0x400)])
    mem = image()
    assert clear_control_blocks(mem, [], address=CB) == (CB,)  # the ELF's place alone
    assert clear_control_blocks(mem, [], address=CB) == ()
    assert bytes(mem.data[0x100:0x110]) == bytes(16)


def test_the_word_after_the_descriptors_counts_dropped_bytes() -> None:
    mem = image()
    block = read_control_block(mem, CB)
    assert dropped_bytes(mem, block) == 0
    mem.write32(CB + 24 + 2 * 24, 1905)  # header, one up and one down descriptor
    assert dropped_bytes(mem, block) == 1905
