"""The RTT writer's C code runs on the emulated Cortex-M55; the host reader reads its RAM.

The firmware (the real hpx_rtt.c, hpx_wire.c and the Apollo platform file, on the qemu-m55
start-up) writes a wire stream into its RTT up-buffer and parks. QEMU's monitor saves the
RAM to a file; hpx's host reader must find the control block there (by scanning, and at the
ELF's ``_SEGGER_RTT``) and drain exactly the bytes the host-side encoder predicts. So the
layout the host expects is the layout the firmware writes.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from hpx_core.boards import get_board
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.firmware.templates import templates_root
from hpx_core.probe.rtt import (
    MemoryImage,
    MemoryImages,
    UpReader,
    dropped_bytes,
    find_control_block,
    open_up_channel,
)
from hpx_core.wire import VERSION, parse_capture
from hpx_core.wire.encode import encode_record

pytestmark = pytest.mark.emulated

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "firmware"
FIXTURE = FIXTURES / "rtt_writer.c"
BOARD = get_board("qemu-m55")
SRAM = next(r for r in BOARD.memory if r.name == "SRAM")
ITCM = next(r for r in BOARD.memory if r.name == "ITCM")
DUMP = 0x40000  # the start of SRAM holds .data and .bss; of ITCM, code and the channel name


def _require(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (CI installs them)")


def build_writer(out: Path, fixture: Path = FIXTURE) -> Path:
    t = templates_root()
    elf = out / f"{fixture.stem}.elf"
    sources = [
        t / "boards" / "common" / "startup.c",
        t / "boards" / "apollo" / "apollo_platform.c",
        t / "transport" / "rtt" / "hpx_rtt.c",
        t / "harness" / "hpx_wire.c",
        fixture,
    ]
    includes = [t / "boards" / "qemu-m55", t / "boards" / "common", t / "harness"]
    includes.append(t / "transport" / "rtt")
    subprocess.run(
        [
            "arm-none-eabi-gcc",
            *BOARD.cpu_flags,
            "-O2",
            "-ffunction-sections",
            "-fdata-sections",
            *(f"-I{d}" for d in includes),
            *map(str, sources),
            "--specs=nano.specs",
            "--specs=nosys.specs",
            "-Wl,--gc-sections",
            f"-L{t / 'boards' / 'common'}",
            f"-T{t / 'boards' / 'qemu-m55' / 'link.ld'}",
            "-o",
            str(elf),
        ],
        check=True,
        capture_output=True,
    )
    return elf


def _monitor(sock: socket.socket, command: str | None) -> str:
    """Send ``command`` (None: just read the banner) and read up to the next prompt."""
    if command is not None:
        sock.sendall(command.encode() + b"\n")
    reply = b""
    while not reply.endswith(b"(qemu) "):
        chunk = sock.recv(4096)
        if not chunk:
            break
        reply += chunk
    return reply.decode("utf-8", "replace")


def dump_memory(elf: Path, work: Path, until: bytes = b" END status=") -> MemoryImages:
    """Run the writer under QEMU until ``until`` is in its RAM (by default: its stream is
    complete), then save SRAM and ITCM through the monitor (``memsave``: the CPU's view, which
    the secure-only SRAM needs)."""
    monitor = work / "monitor.sock"
    image = work / "ram.bin"
    code = work / "itcm.bin"
    qemu = subprocess.Popen(
        [
            "qemu-system-arm",
            "-machine",
            BOARD.qemu.machine,  # type: ignore[union-attr]
            "-cpu",
            BOARD.qemu.cpu,  # type: ignore[union-attr]
            "-display",
            "none",
            "-serial",
            "null",
            "-monitor",
            f"unix:{monitor},server=on,wait=off",
            "-kernel",
            str(elf),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60  # generous: CI machines can be busy
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(30)
            while True:  # the socket appears, then QEMU starts listening on it
                try:
                    sock.connect(str(monitor))
                    break
                except (FileNotFoundError, ConnectionRefusedError):
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            _monitor(sock, None)  # the banner and first prompt
            while True:
                _monitor(sock, f'memsave {SRAM.origin:#x} {DUMP:#x} "{image}"')
                data = bytearray(image.read_bytes())
                if until in data or time.monotonic() > deadline:
                    break
                time.sleep(0.1)
            _monitor(sock, f'memsave {ITCM.origin:#x} {DUMP:#x} "{code}"')
            _monitor(sock, "quit")
    finally:
        try:
            qemu.wait(timeout=10)
        except subprocess.TimeoutExpired:
            qemu.kill()
            qemu.wait()
    return MemoryImages(
        (MemoryImage(SRAM.origin, data), MemoryImage(ITCM.origin, bytearray(code.read_bytes())))
    )


def expected_stream() -> bytes:
    """What the fixture sends, encoded by the host's own encoder."""
    records: list[tuple[str, dict[str, int | str | bytes]]] = [
        (
            "START",
            {
                "v": VERSION,
                "board": "qemu-m55",
                "engine": "rtt writer",
                "counter": "none",
                "units": "ticks",
                "iterations": 1,
                "warmup": 0,
                "max_layers": 1,
            },
        )
    ]
    records += [("METRIC", {"name": "count=%*", "value": i * 1000003}) for i in range(40)]
    records += [("WHOLE", {"iter": 0, "raw": 1234}), ("SUMMARY", {"whole": 1, "layer_records": 0})]
    records.append(
        ("OUTPUT", {"tensor": 0, "offset": 0, "size": 5, "hex": bytes([0, 0x7F, 0x80, 0xFE, 0xFF])})
    )
    records.append(("END", {"status": 0}))
    return b"".join(encode_record(seq, kind, fields) for seq, (kind, fields) in enumerate(records))


def test_host_reader_drains_what_the_firmware_wrote(tmp_path: Path) -> None:
    _require("arm-none-eabi-gcc", "qemu-system-arm")
    elf = build_writer(tmp_path)
    symbol = next(s for s in symbol_inventory(elf).symbols if s.name == "_SEGGER_RTT")
    ram = dump_memory(elf, tmp_path)

    scanned = find_control_block(ram, [(SRAM.origin, DUMP)])
    assert scanned.address == symbol.address
    assert find_control_block(ram, [], address=symbol.address) == scanned
    assert (scanned.max_up, scanned.max_down) == (1, 1)
    channel = open_up_channel(scanned, "hpx")
    assert (channel.size, channel.flags, channel.rd_off) == (4096, 2, 0)

    expected = expected_stream()
    assert channel.wr_off == len(expected)
    reader = UpReader(ram, channel)
    assert reader.poll() == expected
    assert reader.poll() == b""  # RdOff was advanced in the target's memory
    assert open_up_channel(find_control_block(ram, [], address=symbol.address)).rd_off == len(
        expected
    )
    capture = parse_capture(expected)
    assert capture.outputs() == {0: bytes([0, 0x7F, 0x80, 0xFE, 0xFF])}
    assert capture.metrics() == {"count=%*": 39 * 1000003}


def test_text_written_while_timed_is_dropped_and_counted_not_waited_for(tmp_path: Path) -> None:
    _require("arm-none-eabi-gcc", "qemu-system-arm")
    elf = build_writer(tmp_path, FIXTURES / "rtt_overflow.c")
    ram = dump_memory(elf, tmp_path, until=b"OVERFLOW DONE")
    block = find_control_block(ram, [(SRAM.origin, DUMP)])
    channel = open_up_channel(block, "hpx")
    assert channel.flags == 1  # trim: the writer does not wait while timed
    written = channel.size - 1  # a ring holds one byte less than its size
    line = bytes(ord("a") + i % 26 for i in range(500))
    assert UpReader(ram, channel).poll() == (line * 10)[:written]
    assert dropped_bytes(ram, block) == 10 * 500 - written
