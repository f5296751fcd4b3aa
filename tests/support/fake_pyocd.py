"""A fake of the pyocd surface hpx uses: ConnectHelper, Session, Target, FileProgrammer.

It stands at pyocd's boundary, with pyocd's method names and signatures, so the code under
test is hpx's real probe runner. The fake target has RAM and a firmware model that, after a
reset, writes a SEGGER RTT control block laid out as SEGGER documents it (built here with
struct, independently of hpx's reader) and streams bytes into its ring buffer, never
overwriting what the host has not read.

What an Apollo part does that a plain Cortex-M does not, the fake does too:

- RAM is kept across a reset: the previous run's control block (and its unread bytes) stays
  until the new firmware's start-up zeroes ``.bss`` (``leave_previous_run`` puts one there).
- The secure bootloader runs first. While a debugger that was attached at the reset stays
  attached it holds the core (``parks_while_attached``); once let go, the debug port faults
  for ``boot_faults`` reads, answers ``boot_reads`` more with RAM untouched, and then the
  application starts.
- Right after the reset the part refuses a debugger's connect ``boot_refusals`` times (the
  bootloader's phase the host cannot observe), and with ``halts_on_attach`` a connect leaves
  the core halted.
- Session creation raises TargetSupportError for a target pyocd does not know, as pyocd does
  (it builds the board in the Session constructor); ``auto_open`` opens only in ``__enter__``;
  the default ``connect_mode`` halts the core on connect.
- The firmware writes ``burst`` (text printed during a timed inference) without waiting:
  what does not fit in the ring is dropped and counted in the word after the descriptors.
- ``registers`` are what the firmware's start-up leaves in the SoC's registers (``read32``).
- The power pass (``power_at``): once the stream reaches that offset (just past its ``POWER``
  record), it goes on only after the host wrote the go word at ``go_address``; ``go_attached``
  says how many debuggers were attached when it did.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs


class FakeError(Exception):
    """Stands for pyocd.core.exceptions.Error."""


class FakeTargetSupportError(FakeError):
    """Stands for pyocd.core.exceptions.TargetSupportError."""


class State(enum.Enum):
    RUNNING = 1
    HALTED = 2
    RESET = 3
    SLEEPING = 4
    LOCKUP = 5


@attrs.define
class FakeProbe:
    unique_id: str
    description: str
    vendor_name: str = "SEGGER"
    product_name: str = "J-Link"


@attrs.define
class Firmware:
    """What the fake board runs: ``stream`` goes out over RTT, ``chunk`` bytes per poll;
    ``stop_after`` bytes, then silence in ``stopped_state`` (a hang); ``rtt`` False: the
    control block never appears. The rest is described in the module's docstring."""

    stream: bytes
    cb_address: int
    buffer_address: int
    buffer_size: int = 256
    chunk: int = 61
    boot_polls: int = 2
    rtt: bool = True
    stop_after: int | None = None
    stopped_state: State = State.RUNNING
    pc: int = 0x0041_0123
    parks_while_attached: bool = True
    boot_faults: int = 0
    boot_reads: int = 20  # reads the bootloader answers (RAM as the last run left it)
    burst: bytes = b""
    burst_at: int = 0
    fault_after: int | None = None  # the probe's reads fail once this many bytes were sent
    moves_after: int | None = None  # the firmware re-makes its block with another ring size
    registers: dict[int, int] = attrs.field(factory=lambda: dict(APOLLO510_STARTUP))
    boot_refusals: int = 0  # connects refused after a reset, before the debug port answers
    halts_on_attach: bool = False  # a connect leaves the core halted
    power_at: int | None = None  # the power pass: the stream waits here for the host's go
    go_address: int = 0  # where the host writes it (hpx_power_go)


DESCRIPTORS = 24 + 2 * 24  # header, one up and one down descriptor: hpx's word follows

# What the Apollo510 start-up leaves in the registers the host reads after a run (test data,
# spelled from the start-up's writes): caches and loop/branch cache on (SCB->CCR IC, DC, LOB),
# FPU access and lazy stacking, TRCENA, the prefetcher as Ambiq configures it (max outstanding
# 6, max lookahead 6, min lookahead 4, enabled), every CPDLPSTATE domain on, the debug domain
# powered (DEVPWRSTATUS bit 26), MCUPERFREQ in LP mode (status 1, acknowledged, request 1).
APOLLO510_STARTUP = {
    0xE000ED14: (1 << 19) | (1 << 17) | (1 << 16) | (1 << 9),
    0xE000ED88: 0xF << 20,
    0xE000EF34: 0xC000_0000,
    0xE000EDFC: 1 << 24,
    0xE001E004: (6 << 7) | (6 << 4) | (4 << 1) | 1,
    0xE001E300: 0,
    0x4002_1008: 1 << 26,
    0x4002_1000: (1 << 3) | (1 << 2) | 1,
}


class FakeTarget:
    """RAM regions plus the firmware model; pyocd's Target method names."""

    def __init__(self, ram: Sequence[tuple[int, int]], firmware: Firmware) -> None:
        self.ram = {start: bytearray(size) for start, size in ram}
        self.firmware = firmware
        self.name_at = firmware.buffer_address + firmware.buffer_size  # "hpx\0" after the ring
        self.state = State.HALTED
        self.sent = 0
        self.polls = 0
        self.resets = 0
        self.halts = 0
        self.attached = 0
        self.held = False  # a debugger attached at the reset has not let go yet
        self.stuck = False  # reset in a way the bootloader does not hand off after
        self.refusals_left = 0
        self.halts_since_reset = 0
        self.faults_left = 0
        self.boot_reads_left = 0
        self.dropped = 0
        self.burst_written = 0
        self.burst_done = False
        self.line_break = False
        self.on_silent: Callable[[], None] | None = None  # told once silent and all read
        self.go_attached: int | None = None  # debuggers attached when the go was written

    # memory -------------------------------------------------------------------------------
    def _locate(self, addr: int, size: int) -> tuple[bytearray, int]:
        for start, data in self.ram.items():
            if start <= addr and addr + size <= start + len(data):
                return data, addr - start
        raise FakeError(f"memory transfer fault at {addr:#x}")

    def read_memory_block8(self, addr: int, size: int) -> list[int]:
        self._tick()
        fault = self.firmware.fault_after
        if fault is not None and self.sent >= fault:
            raise FakeError(f"memory transfer fault at {addr:#x} (no ACK: the probe lost SWD)")
        data, offset = self._locate(addr, size)
        return list(data[offset : offset + size])

    def read32(self, addr: int) -> int:
        self._tick()
        if self.polls > 0 and addr in self.firmware.registers:
            return self.firmware.registers[addr]
        return self._u32(addr)

    def write32(self, addr: int, value: int) -> None:
        if self.firmware.power_at is not None and addr == self.firmware.go_address:
            self.go_attached = self.attached
        data, offset = self._locate(addr, 4)
        data[offset : offset + 4] = struct.pack("<I", value)

    def _u32(self, addr: int) -> int:
        data, offset = self._locate(addr, 4)
        return int(struct.unpack_from("<I", data, offset)[0])

    # control ------------------------------------------------------------------------------
    def reset(self, reset_type: Any = None) -> None:
        self.resets += 1
        self.state = State.RUNNING
        self.polls = 0
        self.sent = 0
        self.held = self.attached > 0
        self.stuck = False
        self.refusals_left = self.firmware.boot_refusals
        self.halts_since_reset = 0
        self.faults_left = self.firmware.boot_faults
        self.boot_reads_left = self.firmware.boot_reads
        self.burst_written = 0
        self.burst_done = False
        self.line_break = False

    def attach(self) -> None:
        self.attached += 1

    def detach(self) -> None:
        self.attached -= 1
        if self.attached == 0:
            self.held = False

    def halt(self) -> None:
        self.halts += 1
        self.halts_since_reset += 1
        self.state = State.HALTED

    def connect(self) -> bool:
        """A debugger's connect: False while the part refuses it after a reset."""
        if self.refusals_left > 0:
            self.refusals_left -= 1
            return False
        if self.firmware.halts_on_attach:
            self.state = State.HALTED
        return True

    def resume(self) -> None:
        self.state = State.RUNNING

    def get_state(self) -> State:
        return self.state

    def read_core_register(self, reg: str) -> int:
        assert reg == "pc"
        return self.firmware.pc

    def leave_previous_run(self, stream: bytes) -> None:
        """RAM as an earlier run left it: its control block with ``stream`` unread."""
        self._write_control_block()
        for i, byte in enumerate(stream):
            self.write_byte(self.firmware.buffer_address + i, byte)
        self.write32(self.firmware.cb_address + 24 + 12, len(stream))  # WrOff

    def write_byte(self, addr: int, value: int) -> None:
        data, offset = self._locate(addr, 1)
        data[offset] = value

    # the firmware -------------------------------------------------------------------------
    def _write_control_block(self) -> None:
        fw = self.firmware
        name = self.name_at
        data, offset = self._locate(name, 4)
        data[offset : offset + 4] = b"hpx\x00"
        header = struct.pack("<16sii", b"SEGGER RTT", 1, 1)
        up = struct.pack("<IIIIII", name, fw.buffer_address, fw.buffer_size, 0, 0, 2)
        down = struct.pack("<IIIIII", name, 0, 0, 0, 0, 0)
        block = header + up + down + struct.pack("<I", 0)  # hpx's dropped-bytes word
        data, offset = self._locate(fw.cb_address, len(block))
        data[offset : offset + len(block)] = block

    def _tick(self) -> None:
        """One step of the firmware per memory read the host makes (after a reset)."""
        fw = self.firmware
        if self.resets == 0 or self.state is not State.RUNNING:
            return
        if (self.held or self.stuck) and fw.parks_while_attached:
            return  # the bootloader waits for the debugger to let go
        if self.faults_left > 0:
            self.faults_left -= 1
            raise FakeError("memory transfer fault (SWD fault ACK) while the bootloader runs")
        if self.boot_reads_left > 0:
            self.boot_reads_left -= 1  # the bootloader still runs: SRAM as it was
            return
        self.polls += 1
        if self.polls == 1:
            self.write32(fw.cb_address, 0)  # start-up zeroes .bss: the old ID goes
        if not fw.rtt or self.polls < fw.boot_polls:
            return
        if self.polls == fw.boot_polls:
            self._write_control_block()
            return
        self._stream()

    def _stream(self) -> None:
        fw = self.firmware
        limit = len(fw.stream) if fw.stop_after is None else min(fw.stop_after, len(fw.stream))
        if fw.power_at is not None and self.sent >= fw.power_at and not self._u32(fw.go_address):
            return  # the power pass waits for the host's go
        if fw.power_at is not None and self.sent < fw.power_at:
            limit = min(limit, fw.power_at)
        if fw.burst and self.sent == fw.burst_at and not self.burst_done:
            self._burst()
        if self.sent >= limit and not self.line_break:
            if fw.stop_after is not None:
                self.state = fw.stopped_state
                if self.on_silent is not None and self._free() == fw.buffer_size - 1:
                    self.on_silent()  # and the host has read every byte
                    self.on_silent = None
            return
        room = self._free()
        if self.line_break and room:
            self._put(b"\n")  # the platform ends the timed text's line, waiting for the host
            self.line_break = False
            room -= 1
        n = min(room, fw.chunk, limit - self.sent)
        if fw.burst and not self.burst_done and self.sent < fw.burst_at:
            n = min(n, fw.burst_at - self.sent)  # the text comes between two records
        if fw.moves_after is not None and self.sent >= fw.moves_after:
            fw.buffer_size //= 2  # a reset the host did not make: start-up re-made the block
            self._write_control_block()
            fw.moves_after = None
            return
        self._put(fw.stream[self.sent : self.sent + n])
        self.sent += n

    def _burst(self) -> None:
        """Text written inside a timed window: no waiting, what does not fit is dropped."""
        burst = self.firmware.burst
        n = min(self._free(), len(burst))
        self._put(burst[:n])
        self.burst_written = n
        self.burst_done = True
        self.dropped += len(burst) - n
        self.write32(self.firmware.cb_address + DESCRIPTORS, self.dropped)
        self.line_break = True

    def _free(self) -> int:
        desc = self.firmware.cb_address + 24
        wr, rd = self._u32(desc + 12), self._u32(desc + 16)
        return (rd - wr - 1) % self.firmware.buffer_size

    def _put(self, chunk: bytes) -> None:
        fw = self.firmware
        desc = fw.cb_address + 24
        wr = self._u32(desc + 12)
        for byte in chunk:
            self.write_byte(fw.buffer_address + wr, byte)
            wr = (wr + 1) % fw.buffer_size
        self.write32(desc + 12, wr)


class FakeSession:
    """pyocd's Session: the board (and the target it names) is made at construction."""

    def __init__(self, probe: FakeProbe, target: FakeTarget, options: dict[str, Any],
                 known: set[str], auto_open: bool = True, open_error: str | None = None) -> None:
        name = options.get("target_override")
        if name not in known and not options.get("pack"):
            raise FakeTargetSupportError(f"Target type {name} not recognized.")
        self.probe = probe
        self.target = target
        self.options = options
        self.auto_open = auto_open
        self.open_error = open_error
        self.opened = False
        self.closed = False

    @property
    def board(self) -> Any:
        return self

    def open(self, init_board: bool = True) -> None:
        self.opened = True
        self.target.attach()  # pyocd opens the probe before it inits the board
        if self.open_error:
            raise FakeError(self.open_error)
        if not self.target.connect():
            raise FakeError("no ACK received (the part does not answer the debug port yet)")
        if self.options.get("connect_mode", "halt") != "attach":
            self.target.state = State.HALTED  # pyocd's default connect mode halts the core

    def close(self) -> None:
        if self.opened and not self.closed:
            self.target.detach()
        self.closed = True

    def __enter__(self) -> FakeSession:
        if self.auto_open:
            self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@attrs.define
class Bench:
    """The probes on the desk and the board behind them; builds the fake pyocd classes."""

    probes: list[FakeProbe]
    target: FakeTarget
    known_targets: set[str] = attrs.field(factory=set)
    flash_error: str | None = None
    open_error: str | None = None
    sessions: list[FakeSession] = attrs.field(factory=list)
    flashed: list[tuple[str, str | None]] = attrs.field(factory=list)
    streams: list[bytes] = attrs.field(factory=list)  # what each next flashed image sends

    def connect_helper(self) -> Any:
        bench = self

        class ConnectHelper:
            @staticmethod
            def get_all_connected_probes(
                blocking: bool = True, unique_id: str | None = None, print_wait_message: bool = True
            ) -> list[FakeProbe]:
                assert blocking is False, "hpx must never wait for a probe to appear"
                return list(bench.probes)

            @staticmethod
            def session_with_chosen_probe(
                blocking: bool = True,
                return_first: bool = False,
                unique_id: str | None = None,
                auto_open: bool = True,
                options: dict[str, Any] | None = None,
                **kwargs: Any,
            ) -> FakeSession | None:
                matches = [p for p in bench.probes if unique_id and unique_id in p.unique_id]
                if len(matches) != 1:
                    raise AssertionError("pyocd would prompt the user here")
                session = FakeSession(matches[0], bench.target, dict(options or {}),
                                      bench.known_targets, auto_open, bench.open_error)
                bench.sessions.append(session)
                return session

        return ConnectHelper

    def file_programmer(self) -> Any:
        bench = self

        class FileProgrammer:
            def __init__(self, session: FakeSession, **kwargs: Any) -> None:
                assert session.opened and not session.closed
                self.session = session

            def program(
                self, file_or_path: str, file_format: str | None = None, **kwargs: Any
            ) -> None:
                bench.program(file_or_path, file_format)

        return FileProgrammer

    def program(self, file_or_path: str, file_format: str | None) -> None:
        if self.flash_error:
            raise FakeError(self.flash_error)
        assert Path(file_or_path).is_file()
        self.flashed.append((file_or_path, file_format))
        if self.streams:
            self.target.firmware.stream = self.streams.pop(0)
