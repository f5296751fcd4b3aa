"""A Joulescope (JS110, JS220, JS320) through its maker's driver, ``pyjoulescope_driver``.

The driver publishes each signal's samples on a topic of the device (``s/i/!data`` current,
``s/v/!data`` voltage, ``s/gpi/N/!data`` general-purpose input N) once the signal's control
topic is set to 1; each message carries the index of its first sample and the samples.
:class:`Recording` turns those messages into :class:`~hpx_core.power.trace.Chunk` records
while a run goes on and assembles the trace when it stops. The driver is imported only here,
so hpx runs without it (the ``hpx-core[power]`` extra installs it).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

from hpx_core.errors import PowerError
from hpx_core.power.trace import Chunk, PowerTrace, assemble, state_so_far
from hpx_core.power.windows import closed_windows

INSTALL_HINT = 'install the extra: pip install "hpx-core[power]"'
DEFAULT_RATE = 1_000_000
STALL_SECONDS = 2.0
"""How long a streaming instrument may send nothing before the run calls it lost."""


def load_driver() -> Any:
    """The driver's ``Driver`` class; PowerError naming the extra when it is not installed."""
    try:
        from pyjoulescope_driver import Driver
    except ImportError:
        raise PowerError("power measurement needs the Joulescope driver "
                         "(pyjoulescope_driver), which is not installed", INSTALL_HINT) from None
    return Driver


def instruments(driver: Any | None = None) -> list[str]:
    """The device paths of the attached Joulescopes (``u/js220/002557``)."""
    if driver is not None:
        return list(driver.device_paths())
    with load_driver()() as opened:
        return list(opened.device_paths())


def choose(paths: Sequence[str], serial: str | None) -> str:
    """The one instrument to use: the one whose serial number is ``serial``, or the only one."""
    if serial is not None:
        found = [p for p in paths if p.lower().rsplit("/", 1)[-1] == serial.lower()]
        if not found:
            raise PowerError(f"no Joulescope with serial number {serial} is attached "
                             f"(attached: {', '.join(paths) or 'none'})",
                             "connect it, or set power.serial to one that is")
        return found[0]
    if len(paths) != 1:
        raise PowerError(f"{len(paths)} Joulescopes are attached" + (
            f" ({', '.join(paths)})" if paths else ""),
            "connect one, or name it with power.serial" if paths
            else "connect the Joulescope by USB (hpx doctor lists instruments)")
    return paths[0]


@attrs.frozen
class Wiring:
    """Which of the instrument's general-purpose inputs see the board's power GPIOs 0 and 1."""

    gpi0: int = 0
    gpi1: int = 1


class Recording:
    """Current, voltage and the two inputs of ``device`` streamed into chunks until
    :meth:`stop`. Messages arrive on the driver's thread; the chunks are kept under a lock."""

    def __init__(self, driver: Any, device: str, *, sample_rate: int = DEFAULT_RATE,
                 wiring: Wiring = Wiring(), clock: Callable[[], float] = time.monotonic
                 ) -> None:
        self._driver, self._device, self._rate, self._clock = driver, device, sample_rate, clock
        self._topics = {f"{device}/s/i/!data": "current", f"{device}/s/v/!data": "voltage",
                        f"{device}/s/gpi/{wiring.gpi0}/!data": "gpi0",
                        f"{device}/s/gpi/{wiring.gpi1}/!data": "gpi1"}
        self._chunks: dict[str, list[Chunk]] = {name: [] for name in self._topics.values()}
        self._lock = threading.Lock()
        self._last = clock()
        self._seen_rate: int | None = None

    def start(self) -> None:
        """Open the instrument, set its rate and switch every signal on."""
        try:
            self._driver.open(self._device, "defaults")
            self._driver.publish(f"{self._device}/h/fs", self._rate)
            for topic in self._topics:
                self._driver.subscribe(topic, ["pub"], self._on_data)
                self._driver.publish(topic.replace("!data", "ctrl"), 1)
        except Exception as error:
            raise PowerError(f"the Joulescope {self._device} did not start streaming "
                             f"({type(error).__name__}: {error})",
                             "reconnect it and check it with hpx doctor") from None
        self._last = self._clock()

    def wait_ready(self, timeout: float = STALL_SECONDS, poll: float = 0.005) -> None:
        """Wait until every signal has sent samples (the run may start then); PowerError if
        one has not within ``timeout`` seconds."""
        deadline = self._clock() + timeout
        while True:
            with self._lock:
                silent = [name for name, found in self._chunks.items() if not found]
            if not silent:
                return
            if self._clock() > deadline:
                raise PowerError(f"the Joulescope {self._device} sent no "
                                 f"{', '.join(silent)} samples within {timeout:.1f} s",
                                 "reconnect it and check it with hpx doctor")
            time.sleep(poll)

    def check(self, stall: float = STALL_SECONDS) -> None:
        """PowerError when nothing arrived for ``stall`` seconds (the instrument is lost)."""
        if self._clock() - self._last > stall:
            raise PowerError(f"the Joulescope {self._device} stopped streaming "
                             f"{stall:.1f} s ago", "check its USB cable and power, then run "
                             "again; the run's counts were kept")

    def samples(self) -> int:
        """How many current samples have arrived."""
        with self._lock:
            return sum(len(c.data) for c in self._chunks["current"])

    def windows_closed(self) -> int:
        """How many windows the board has opened and closed in what arrived so far."""
        with self._lock:
            gpi0, gpi1 = list(self._chunks["gpi0"]), list(self._chunks["gpi1"])
        return closed_windows(state_so_far(gpi0, gpi1))

    def stop(self) -> PowerTrace:
        """Switch the signals off, close the instrument and assemble what arrived."""
        self.release()
        with self._lock:
            chunks = {name: list(found) for name, found in self._chunks.items()}
        return assemble(self._seen_rate or self._rate, chunks)

    def release(self) -> None:
        """Switch the signals off and close the instrument (a lost one raises nothing here)."""
        for topic in self._topics:
            try:
                self._driver.publish(topic.replace("!data", "ctrl"), 0)
                self._driver.unsubscribe(topic, self._on_data)
            except Exception:  # a lost instrument: what arrived is still assembled below
                pass
        with contextlib.suppress(Exception):
            self._driver.close(self._device)

    def _on_data(self, topic: str, value: Any) -> None:
        name = self._topics.get(topic)
        if name is None or not isinstance(value, dict):
            return
        decimate = max(int(value.get("decimate_factor", 1)), 1)
        data = np.asarray(value["data"])
        chunk = Chunk(int(value["sample_id"]) // decimate, data.copy(), name.startswith("gpi"))
        with self._lock:
            self._chunks[name].append(chunk)
            self._seen_rate = int(value.get("sample_rate", self._rate)) // decimate
            self._last = self._clock()


def record_while(driver: Any, device: str, until: Callable[[], bool], *,
                 sample_rate: int = DEFAULT_RATE, wiring: Wiring = Wiring(),
                 poll: float = 0.01, stall: float = STALL_SECONDS) -> PowerTrace:
    """Record ``device`` until ``until()`` says the run is over; PowerError if the instrument
    stops streaming first (what arrived is lost with it: the run's counts are not)."""
    recording = Recording(driver, device, sample_rate=sample_rate, wiring=wiring)
    recording.start()
    try:
        recording.wait_ready(stall)
        while not until():
            recording.check(stall)
            time.sleep(poll)
    except BaseException:
        recording.release()
        raise
    return recording.stop()

