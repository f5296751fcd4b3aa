"""A fake of the pyocd surface hpx uses: ConnectHelper, Session, Target, FileProgrammer.

It stands at pyocd's boundary, with pyocd's method names and signatures, so the code under
test is hpx's real probe runner. The fake target has RAM and a firmware model that, after a
reset, writes a SEGGER RTT control block laid out as SEGGER documents it (built here with
struct, independently of hpx's reader) and streams bytes into its ring buffer, never
overwriting what the host has not read.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Sequence
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
    control block never appears."""

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


class FakeTarget:
    """RAM regions plus the firmware model; pyocd's Target method names."""

    def __init__(self, ram: Sequence[tuple[int, int]], firmware: Firmware) -> None:
        self.ram = {start: bytearray(size) for start, size in ram}
        self.firmware = firmware
        self.state = State.HALTED
        self.sent = 0
        self.polls = 0
        self.resets = 0
        self.halts = 0

    # memory -------------------------------------------------------------------------------
    def _locate(self, addr: int, size: int) -> tuple[bytearray, int]:
        for start, data in self.ram.items():
            if start <= addr and addr + size <= start + len(data):
                return data, addr - start
        raise FakeError(f"memory transfer fault at {addr:#x}")

    def read_memory_block8(self, addr: int, size: int) -> list[int]:
        self._tick()
        data, offset = self._locate(addr, size)
        return list(data[offset : offset + size])

    def write32(self, addr: int, value: int) -> None:
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

    def halt(self) -> None:
        self.halts += 1
        self.state = State.HALTED

    def resume(self) -> None:
        self.state = State.RUNNING

    def get_state(self) -> State:
        return self.state

    def read_core_register(self, reg: str) -> int:
        assert reg == "pc"
        return self.firmware.pc

    # the firmware -------------------------------------------------------------------------
    def _write_control_block(self) -> None:
        fw = self.firmware
        name = fw.buffer_address + fw.buffer_size  # "hpx\0" right after the ring
        data, offset = self._locate(name, 4)
        data[offset : offset + 4] = b"hpx\x00"
        header = struct.pack("<16sii", b"SEGGER RTT", 1, 1)
        up = struct.pack("<IIIIII", name, fw.buffer_address, fw.buffer_size, 0, 0, 2)
        down = struct.pack("<IIIIII", name, 0, 0, 0, 0, 0)
        block = header + up + down
        data, offset = self._locate(fw.cb_address, len(block))
        data[offset : offset + len(block)] = block

    def _tick(self) -> None:
        """One step of the firmware per memory read the host makes (after a reset)."""
        fw = self.firmware
        if self.resets == 0 or self.state is not State.RUNNING:
            return
        self.polls += 1
        if not fw.rtt or self.polls < fw.boot_polls:
            return
        if self.polls == fw.boot_polls:
            self._write_control_block()
            return
        limit = len(fw.stream) if fw.stop_after is None else min(fw.stop_after, len(fw.stream))
        if self.sent >= limit:
            if fw.stop_after is not None:
                self.state = fw.stopped_state
            return
        desc = fw.cb_address + 24
        wr, rd = self._u32(desc + 12), self._u32(desc + 16)
        free = (rd - wr - 1) % fw.buffer_size
        n = min(free, fw.chunk, limit - self.sent)
        for byte in fw.stream[self.sent : self.sent + n]:
            data, offset = self._locate(fw.buffer_address + wr, 1)
            data[offset] = byte
            wr = (wr + 1) % fw.buffer_size
        self.sent += n
        self.write32(desc + 12, wr)


class FakeSession:
    def __init__(
        self, probe: FakeProbe, target: FakeTarget, options: dict[str, Any], known: set[str]
    ) -> None:
        self.probe = probe
        self.target = target
        self.options = options
        self.known = known
        self.opened = False
        self.closed = False

    @property
    def board(self) -> Any:
        return self

    def open(self, init_board: bool = True) -> None:
        name = self.options.get("target_override")
        if name not in self.known and not self.options.get("pack"):
            raise FakeTargetSupportError(f"Target type {name} not recognized.")
        self.opened = True

    def close(self) -> None:
        self.closed = True


@attrs.define
class Bench:
    """The probes on the desk and the board behind them; builds the fake pyocd classes."""

    probes: list[FakeProbe]
    target: FakeTarget
    known_targets: set[str] = attrs.field(factory=set)
    flash_error: str | None = None
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
                session = FakeSession(
                    matches[0], bench.target, dict(options or {}), bench.known_targets
                )
                bench.sessions.append(session)
                return session

        return ConnectHelper

    def file_programmer(self) -> Any:
        bench = self

        class FileProgrammer:
            def __init__(self, session: FakeSession, **kwargs: Any) -> None:
                assert session.opened
                self.session = session

            def program(
                self, file_or_path: str, file_format: str | None = None, **kwargs: Any
            ) -> None:
                if bench.flash_error:
                    raise FakeError(bench.flash_error)
                assert Path(file_or_path).is_file()
                bench.flashed.append((file_or_path, file_format))
                if bench.streams:
                    bench.target.firmware.stream = bench.streams.pop(0)

        return FileProgrammer
