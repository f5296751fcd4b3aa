"""Flash an ELF through a debug probe, reset, and read the wire stream over RTT.

The loop reads until the stream's END record, the overall timeout, or a silence longer than
the heartbeat window: then the core is asked what it is doing (stopped, locked up, or still
running at some PC), so a hung target is reported as hung with where it hangs.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs

from hpx_core.boards import Board
from hpx_core.build.elfinfo import symbol_inventory
from hpx_core.build.placement import check_elf
from hpx_core.contract import Json
from hpx_core.errors import CaptureError, RunError
from hpx_core.log import get_logger
from hpx_core.probe.probes import ProbeInfo, ProbeLinkError, choose_probe, list_probes
from hpx_core.probe.pyocd_api import PyocdApi, pyocd_api
from hpx_core.probe.rtt import UpReader, find_control_block, open_up_channel
from hpx_core.run.runner import Execution, StreamStoppedError

log = get_logger(__name__)

RTT_SYMBOL = "_SEGGER_RTT"
RTT_CHANNEL = "hpx"
_END = re.compile(rb"^@HPX \d+ END [^\n]*\n", re.MULTILINE)
STOPPED = {"HALTED", "LOCKUP", "RESET"}


def _paths(value: Iterable[str | Path]) -> tuple[Path, ...]:
    return tuple(Path(p) for p in value)


@attrs.frozen
class ProbeSettings:
    """How long to wait: for the whole run, for RTT to appear after reset, and for silence."""

    timeout: float = 120.0
    rtt_wait: float = 5.0
    heartbeat: float = 10.0
    poll: float = 0.02
    packs: tuple[Path, ...] = attrs.field(default=(), converter=_paths)


@attrs.frozen
class ProbeOutput:
    """What one run on a board produced."""

    probe: ProbeInfo
    target: str
    stream: bytes
    seconds: float
    rtt_address: int


def _rtt_address(elf: Path) -> int | None:
    for sym in symbol_inventory(elf).symbols:
        if sym.name == RTT_SYMBOL:
            return sym.address
    return None


def _ram_ranges(board: Board) -> list[tuple[int, int]]:
    return [(r.origin, r.length) for r in board.memory if "data" in r.use.split(",")]


def _open(api: PyocdApi, probe: ProbeInfo, board: Board, settings: ProbeSettings) -> Any:
    assert board.silicon is not None
    options: dict[str, Any] = {"target_override": board.silicon.pyocd_target}
    if settings.packs:
        options["pack"] = [str(p) for p in settings.packs]
    session = api.connect_helper.session_with_chosen_probe(
        blocking=False, unique_id=probe.unique_id, auto_open=False, options=options
    )
    if session is None:
        raise RunError(f"probe {probe.unique_id} went away", "reconnect it and run again")
    try:
        session.open()
    except api.target_support_error as error:
        hint = (
            "pass the Ambiq CMSIS pack with --pack PATH (AmbiqMicro Apollo DFP .pack)"
            if not settings.packs
            else "check that the pack given with --pack supports this part"
        )
        raise RunError(
            f"pyocd does not know target {board.silicon.pyocd_target!r} ({error})", hint
        ) from None
    except api.error as error:
        raise RunError(f"cannot connect through probe {probe.unique_id}: {error}", "") from None
    return session


def _flash(api: PyocdApi, session: Any, elf: Path) -> None:
    try:
        api.file_programmer(session).program(str(elf), file_format="elf")
    except api.error as error:
        raise RunError(
            f"flashing {elf.name} failed: {error}",
            "check the board's power and the probe cable; try `pyocd erase --chip`",
        ) from None


def _wait_for_rtt(
    target: Any, board: Board, address: int | None, settings: ProbeSettings, clock: Clock
) -> UpReader:
    deadline = clock() + settings.rtt_wait
    while True:
        try:
            block = find_control_block(target, _ram_ranges(board), address=address)
            return UpReader(target, open_up_channel(block, RTT_CHANNEL))
        except CaptureError as error:
            if clock() >= deadline:
                raise CaptureError(
                    f"{error.message} within {settings.rtt_wait:g} s of reset",
                    "the firmware did not start or crashed before starting RTT; "
                    "check the flash, the boot address and the power mode",
                ) from None
        time.sleep(settings.poll)


def _where(target: Any, elf: Path) -> str:
    state = target.get_state()
    name = getattr(state, "name", str(state))
    try:
        if name not in STOPPED:
            target.halt()
        pc = int(target.read_core_register("pc"))
    except Exception:  # the diagnosis must not hide the hang itself
        return f"core {name}"
    func = symbol_inventory(elf).function_at(pc)
    return f"core {name}, pc {pc:#010x}" + (f" in {func.name}" if func else "")


Clock = Callable[[], float]


def read_stream(
    reader: UpReader, target: Any, elf: Path, settings: ProbeSettings, clock: Clock
) -> bytes:
    """Bytes from RTT until END; StreamStoppedError on a timeout, a silent (hung/stopped)
    target, a lost link to the probe or Ctrl-C, with what had come."""
    data = bytearray()
    try:
        return _read_until_end(reader, target, elf, settings, clock, data)
    except ProbeLinkError as error:
        raise StreamStoppedError(error.message, error.hint, bytes(data)) from None
    except KeyboardInterrupt:
        raise StreamStoppedError("the run was interrupted", "the target was left running",
                                 bytes(data), interrupted=True) from None


def _read_until_end(reader: UpReader, target: Any, elf: Path, settings: ProbeSettings,
                    clock: Clock, data: bytearray) -> bytes:
    started = last = clock()
    while not _END.search(data):
        chunk = reader.poll()
        now = clock()
        if chunk:
            data += chunk
            last = now
            continue
        if now - last > settings.heartbeat:
            raise StreamStoppedError(
                f"the target is hung: no output for {settings.heartbeat:g} s "
                f"({_where(target, elf)}) after {len(data)} bytes",
                "the partial capture is in the failed bundle",
                bytes(data),
            )
        if now - started > settings.timeout:
            raise StreamStoppedError(
                f"the run did not finish within {settings.timeout:g} s",
                "raise --timeout if the model is that slow",
                bytes(data),
            )
        time.sleep(settings.poll)
    return bytes(data)


def run_on_probe(
    board: Board,
    elf: Path,
    *,
    probe: str | None = None,
    settings: ProbeSettings | None = None,
    api: PyocdApi | None = None,
    clock: Clock = time.monotonic,
    on_partial: Callable[[bytes], None] | None = None,
) -> ProbeOutput:
    """Flash ``elf`` to ``board`` through the chosen probe, reset, and capture the stream."""
    if board.silicon is None:
        raise RunError(f"board {board.name} is not run through a probe", "use `hpx run`")
    chosen_settings = settings or ProbeSettings()
    link = api or pyocd_api()
    check_elf(board, elf)  # a broken link is an error before anything is flashed
    chosen = choose_probe(list_probes(link), probe)
    address = _rtt_address(elf)
    started = clock()
    session = _open(link, chosen, board, chosen_settings)
    try:
        target = session.target
        _flash(link, session, elf)
        target.reset()
        reader = _wait_for_rtt(target, board, address, chosen_settings, clock)
        log.info("rtt", address=hex(reader.channel.descriptor), probe=chosen.unique_id)
        stream = read_stream(reader, target, elf, chosen_settings, clock)
    finally:
        session.close()
    return ProbeOutput(
        chosen,
        board.silicon.pyocd_target,
        stream,
        clock() - started,
        reader.channel.descriptor,
    )


@attrs.frozen
class ProbeRunner:
    """The silicon boards' runner: flash through the chosen probe, capture over RTT."""

    board: Board
    settings: ProbeSettings
    probe: str | None = None
    api: PyocdApi | None = None

    @property
    def timeout(self) -> float:
        return self.settings.timeout

    def check(self) -> None:
        choose_probe(list_probes(self.api or pyocd_api()), self.probe)

    def execute(self, elf: Path) -> Execution:
        output = run_on_probe(self.board, elf, probe=self.probe, settings=self.settings,
                              api=self.api)
        probe: dict[str, Json] = dict(attrs.asdict(output.probe))
        details: dict[str, Json] = {
            "runner": "probe", "probe": probe, "pyocd_target": output.target,
            "seconds": round(output.seconds, 3),
            "rtt_control_block": f"{output.rtt_address:#010x}",
        }
        return Execution(output.stream, output.seconds, details, {"runner": "probe"})
