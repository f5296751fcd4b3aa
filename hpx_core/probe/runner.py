"""Flash an ELF through a debug probe, hand the part to its bootloader, read the wire stream.

One run: choose the probe and the path to the part (:mod:`.route`: SEGGER J-Link's device
support, or pyocd with the part's pack); in a first session flash, forget the previous run's
RTT control block (Apollo SRAM survives a reset) and reset; let go so the secure bootloader
starts the application (:mod:`.session`); attach again and wait for this run's control block,
retrying the probe's faults while the bootloader holds the bus; read until the stream's END
record, the overall timeout, the capture limit (:data:`~hpx_core.run.runner.MAX_CAPTURE`:
firmware talking forever stops there, and the host's buffer never grows past it), or a silence
longer than the heartbeat window (then the core is asked what it is doing, so a hung target is
reported as hung with where it hangs). After END
the host reads the bytes the firmware dropped while a measurement ran and the part's caches,
power states and clock mode (:mod:`.hwstate`); both become issues of the run when they are not
as Ambiq's firmware has them. On the J-Link path an Apollo part is reset by J-Link Commander
when it is installed (:mod:`.commander`), else through pylink; ``run.json`` says which. A run
that measures energy lets go of the part at the firmware's ``POWER`` record while the
instrument records its windows, then attaches again for the rest (:mod:`.power_run`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from hpx_core.boards import Board
from hpx_core.contract import Json
from hpx_core.errors import CaptureError, PowerError, RunError
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.firmware.placement import check_elf
from hpx_core.log import get_logger
from hpx_core.probe.commander import COMMANDER_RESET, ResetWay, commander_reset, find_commander
from hpx_core.probe.commander import reset_way as choose_reset
from hpx_core.probe.hwstate import HardwareState, read_state
from hpx_core.probe.jlink import jlink_api
from hpx_core.probe.probes import ProbeInfo, ProbeLinkError, choose_probe, list_probes
from hpx_core.probe.pyocd_api import PyocdApi, pyocd_api
from hpx_core.probe.route import JLINK, Route, choose_route, jlink_software, pylink_module
from hpx_core.probe.rtt import (
    ControlBlock,
    UpReader,
    clear_control_blocks,
    dropped_bytes,
    find_control_block,
    open_up_channel,
)
from hpx_core.probe.session import Patience, attached, opened
from hpx_core.run.runner import MAX_CAPTURE, Execution, StreamStoppedError, over_capture_limit

if TYPE_CHECKING:  # numpy comes with them: a run that measures energy imports them
    from hpx_core.power.joulescope import Recording
    from hpx_core.power.trace import PowerTrace
    from hpx_core.probe.power_run import PowerRun

log = get_logger(__name__)

RTT_SYMBOL = "_SEGGER_RTT"
RTT_CHANNEL = "hpx"
_END = re.compile(rb"^@HPX \d+ END [^\n]*\n", re.MULTILINE)
_POWER_OR_END = re.compile(rb"^@HPX \d+ (?:POWER|END) [^\n]*\n", re.MULTILINE)
STOPPED = {"HALTED", "LOCKUP", "RESET"}
Clock = Callable[[], float]
T = TypeVar("T")


def _paths(value: Iterable[str | Path]) -> tuple[Path, ...]:
    return tuple(Path(p) for p in value)


@attrs.frozen
class ProbeSettings:
    """How long to wait: for the whole run, for the probe to connect again after the
    bootloader hand-off (``attach_wait``, retried every ``attach_interval``: Ambiq's profiler's
    30 s and 0.1 s), for RTT to appear, and for silence; and how much of the stream to keep
    at most."""

    timeout: float = 120.0
    attach_wait: float = 30.0
    attach_interval: float = 0.1
    rtt_wait: float = 5.0
    heartbeat: float = 10.0
    poll: float = 0.02
    max_capture: int = MAX_CAPTURE
    packs: tuple[Path, ...] = attrs.field(default=(), converter=_paths)


@attrs.frozen
class Links:
    """The probe software a run uses: pyocd (listing probes, the pyocd path), pylink (the
    J-Link path; None when SEGGER's J-Link library is not installed) and J-Link Commander
    (the Apollo parts' reset on that path; None when not found)."""

    pyocd: PyocdApi
    pylink: Any | None = None
    jlink_version: str = "unknown"
    commander: Path | None = None


def installed_links() -> Links:
    """The real pyocd and, where SEGGER's library loads, pylink and J-Link Commander."""
    version = jlink_software()
    pylink = pylink_module() if version else None
    commander = find_commander(pylink) if pylink is not None else None
    return Links(pyocd_api(), pylink, version or "unknown", commander)


@attrs.frozen
class ProbeOutput:
    """What one run on a board produced."""

    probe: ProbeInfo
    route: Route
    software: str
    stream: bytes
    seconds: float
    rtt_address: int
    dropped: int
    hardware: HardwareState
    reset: ResetWay
    power: PowerTrace | None = None


def _rtt_address(elf: Path) -> int | None:
    for sym in symbol_inventory(elf).symbols:
        if sym.name == RTT_SYMBOL:
            return sym.address
    return None


def _ram_ranges(board: Board) -> list[tuple[int, int]]:
    return [(r.origin, r.length) for r in board.memory if "data" in r.use.split(",")]


def route_for(links: Links, board: Board, probe: ProbeInfo,
              packs: tuple[Path, ...]) -> tuple[Route, PyocdApi]:
    """The route to the part and the API that takes it."""
    route = choose_route(board, probe, packs, jlink=links.pylink is not None)
    if route.path == JLINK:
        return route, jlink_api(route.device, links.pylink, links.jlink_version)
    return route, links.pyocd


def _flash(api: PyocdApi, session: Any, elf: Path) -> None:
    try:
        api.file_programmer(session).program(str(elf), file_format="elf")
    except api.error as error:
        raise RunError(
            f"flashing {elf.name} failed: {error}",
            "check the board's power and the probe cable, then run again",
        ) from None


def _reset(api: PyocdApi, target: Any, board: Board, address: int | None,
           way: ResetWay) -> None:
    """Forget the previous run's RTT control block, then reset the part (left running). When
    Commander resets it after this session, the core is halted first, so nothing it runs
    in between can write a control block again (Ambiq's profiler halts before it wipes too)."""
    try:
        if way.name == COMMANDER_RESET:
            target.halt()
        cleared = clear_control_blocks(target, _ram_ranges(board), address=address)
        if way.name != COMMANDER_RESET:
            target.reset()
    except api.error as error:
        raise RunError(f"resetting {board.name} failed: {error}",
                       "check the board's power and the probe cable, then run again") from None
    if cleared:
        log.info("rtt", cleared=[hex(a) for a in cleared])


def _wait_for_rtt(target: Any, board: Board, address: int | None, settings: ProbeSettings,
                  clock: Clock, error: type[Exception]) -> tuple[ControlBlock, UpReader]:
    """This run's control block; the probe's faults while the bootloader holds the bus and a
    block not written yet are retried until ``rtt_wait`` has passed."""
    deadline = clock() + settings.rtt_wait
    while True:
        try:
            block = find_control_block(target, _ram_ranges(board), address=address)
            return block, UpReader(target, open_up_channel(block, RTT_CHANNEL))
        except CaptureError as problem:
            last = problem.message
        except error as problem:
            last = f"the probe's reads failed ({problem})"
        if clock() >= deadline:
            raise CaptureError(
                f"{last} within {settings.rtt_wait:g} s of reset",
                "the firmware did not start or crashed before starting RTT; "
                "check the flash, the boot address and the power mode",
            )
        time.sleep(settings.poll)


def _resume_if_halted(target: Any, error: type[Exception]) -> None:
    """A core halted at the attach (left so by the flashing session, or halted by the
    probe's connect) would never run: resume it, as Ambiq's profiler does after every attach."""
    try:
        if getattr(target.get_state(), "name", "") == "HALTED":
            target.resume()
            log.info("probe", resumed="the core was halted at the attach")
    except error:
        pass  # the wait for RTT reports a part that does not answer


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


def read_stream(reader: UpReader, target: Any, elf: Path, settings: ProbeSettings,
                clock: Clock, errors: tuple[type[Exception], ...] = (), *,
                until: re.Pattern[bytes] = _END, before: bytes = b"") -> bytes:
    """Bytes from RTT until END (or the record ``until`` matches); StreamStoppedError on a
    timeout, a silent (hung/stopped) target, a lost link to the probe, a probe fault, an RTT
    block overwritten or moved, or Ctrl-C, with what had come (after ``before``, what an
    earlier session of the run read)."""
    data = bytearray(before)
    try:
        return _read_until_end(reader, target, elf, settings, clock, data, until)
    except ProbeLinkError as error:
        raise StreamStoppedError(error.message, error.hint, bytes(data)) from None
    except CaptureError as error:
        raise StreamStoppedError(f"{error.message} after {len(data)} bytes", error.hint,
                                 bytes(data)) from None
    except errors as error:
        raise StreamStoppedError(f"the probe failed while reading RTT after {len(data)} bytes "
                                 f"({error})", "check the probe's cable and the board's power",
                                 bytes(data)) from None
    except KeyboardInterrupt:
        raise StreamStoppedError("the run was interrupted", "the target was left running",
                                 bytes(data), interrupted=True) from None


def _read_until_end(reader: UpReader, target: Any, elf: Path, settings: ProbeSettings,
                    clock: Clock, data: bytearray, until: re.Pattern[bytes]) -> bytes:
    started = last = clock()
    seen = len(data)  # the stream before this offset holds no record looked for
    while not until.search(data, seen):
        seen = max(seen, data.rfind(b"\n", seen) + 1)  # END is a whole line: search past here
        chunk = reader.poll()
        now = clock()
        if chunk:
            data += chunk
            if len(data) > settings.max_capture:
                raise over_capture_limit(settings.max_capture, data)
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


def _after_end(target: Any, block: ControlBlock, board: Board,
               error: type[Exception]) -> tuple[int, HardwareState]:
    assert board.silicon is not None
    try:
        dropped = dropped_bytes(target, block)
    except error:
        dropped = 0
    return dropped, read_state(target, board.silicon.soc, (error,), clock=board.clock)


def run_on_probe(
    board: Board,
    elf: Path,
    *,
    probe: str | None = None,
    settings: ProbeSettings | None = None,
    api: PyocdApi | None = None,
    links: Links | None = None,
    clock: Clock = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    power: PowerRun | None = None,
) -> ProbeOutput:
    """Flash ``elf`` to ``board`` through the chosen probe, reset, and capture the stream.
    ``api`` alone is a pyocd that the whole run goes through (a farm's remote pyocd);
    ``power``: the instrument that records the firmware's energy windows."""
    if board.silicon is None:
        raise RunError(f"board {board.name} is not run through a probe", "use `hpx run`")
    chosen_settings = settings or ProbeSettings()
    world = links or (Links(api) if api is not None else installed_links())
    check_elf(board, elf)  # a broken link is an error before anything is flashed
    chosen = choose_probe(list_probes(world.pyocd), probe)
    route, link = route_for(world, board, chosen, chosen_settings.packs)
    way = choose_reset(board, route, world.commander)
    address = _rtt_address(elf)
    started = clock()
    packs = chosen_settings.packs
    with opened(link, chosen, board, route, packs) as session:
        _flash(link, session, elf)
        _reset(link, session.target, board, address, way)
    if way.commander is not None:
        commander_reset(way.commander, route.device, chosen.unique_id)
    sleep(board.silicon.boot_handoff)  # the bootloader starts the application once let go
    patience = Patience(chosen_settings.attach_wait, chosen_settings.attach_interval, clock,
                        sleep)
    with attached(link, chosen, board, route, packs, patience) as session:
        target = session.target
        _resume_if_halted(target, link.error)
        block, reader = _wait_for_rtt(target, board, address, chosen_settings, clock,
                                      link.error)
        log.info("rtt", address=hex(reader.channel.descriptor), probe=chosen.unique_id,
                 path=route.path)
        stream = read_stream(reader, target, elf, chosen_settings, clock, (link.error,),
                             until=_POWER_OR_END if power is not None else _END)
        recording = None
        if power is not None and not _END.search(stream):
            recording = _go(power, target, elf, link.error, stream)
        else:
            dropped, state = _after_end(target, block, board, link.error)
    trace = None
    if recording is not None and power is not None:  # the probe has let go: the windows run
        trace = _windows(power, recording, stream, clock, sleep)
        with attached(link, chosen, board, route, packs, patience) as session:
            target = session.target
            block, reader = _wait_for_rtt(target, board, address, chosen_settings, clock,
                                          link.error)
            stream = read_stream(reader, target, elf, chosen_settings, clock, (link.error,),
                                 before=stream)
            dropped, state = _after_end(target, block, board, link.error)
    return ProbeOutput(chosen, route, link.version, stream, clock() - started,
                       reader.channel.descriptor, dropped, state, way, trace)


def _go(power: PowerRun, target: Any, elf: Path, error: type[Exception],
        stream: bytes) -> Recording:
    """The instrument recording, then the firmware's go written: its windows may start."""
    from hpx_core.probe.power_run import go_address

    where = go_address(elf)
    recording = _stopped_with(stream, power.start)
    try:
        target.write32(where, 1)
    except error as problem:
        recording.release()
        raise StreamStoppedError(f"the probe could not send the power pass its go ({problem})",
                                 "check the probe's cable and the board's power",
                                 stream) from None
    log.info("power", go=hex(where), instrument=power.device, windows=power.windows)
    return recording


def _windows(power: PowerRun, recording: Recording, stream: bytes, clock: Clock,
             sleep: Callable[[float], None]) -> PowerTrace:
    return _stopped_with(stream, lambda: power.finish(recording, clock, sleep))


def _stopped_with(stream: bytes, step: Callable[[], T]) -> T:
    """``step()``; an instrument's failure stops the run as a stream stops, with what came."""
    try:
        return step()
    except PowerError as failed:
        raise StreamStoppedError(failed.message, failed.hint, stream) from None


def _issues(output: ProbeOutput) -> tuple[str, ...]:
    dropped = ((f"RTT dropped {output.dropped} bytes the firmware wrote while a measurement "
                "ran (the host fell behind; the firmware never waits for it then): that "
                "output is missing from the capture",) if output.dropped else ())
    return dropped + output.hardware.issues


@attrs.frozen
class ProbeRunner:
    """The silicon boards' runner: flash through the chosen probe, capture over RTT.
    ``api``: a pyocd the whole run goes through; ``links``: the probe software (default:
    what is installed); ``power``: the instrument recording the energy windows."""

    board: Board
    settings: ProbeSettings
    probe: str | None = None
    api: PyocdApi | None = None
    links: Links | None = None
    power: PowerRun | None = None

    @property
    def timeout(self) -> float:
        return self.settings.timeout

    def check(self) -> None:
        pyocd = self.api or (self.links.pyocd if self.links else pyocd_api())
        choose_probe(list_probes(pyocd), self.probe)

    def execute(self, elf: Path) -> Execution:
        output = run_on_probe(self.board, elf, probe=self.probe, settings=self.settings,
                              api=self.api, links=self.links, power=self.power)
        probe: dict[str, Json] = dict(attrs.asdict(output.probe))
        details: dict[str, Json] = {
            "runner": "probe", "probe": probe, "flash_path": output.route.path,
            "device": output.route.device, "route": output.route.why,
            "reset": output.reset.name, "reset_why": output.reset.why,
            "probe_software": output.software, "seconds": round(output.seconds, 3),
            "rtt_control_block": f"{output.rtt_address:#010x}",
            "rtt_dropped_bytes": output.dropped, "hardware": output.hardware.as_json(),
        }
        if self.power is not None and output.power is not None:
            details["power"] = {"instrument": self.power.device, "probe": "let go of the part "
                                "during the windows, attached again after them (no reset)",
                                "samples": len(output.power),
                                "sample_rate": output.power.sample_rate}
        identity: dict[str, Json] = {"runner": "probe", "flash_path": output.route.path,
                                     "probe_software": output.software}
        return Execution(output.stream, output.seconds, details, identity,
                         issues=_issues(output), power=output.power)
