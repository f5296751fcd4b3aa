"""A Joulescope for tests: ``pyjoulescope_driver.Driver``'s face over a known trace.

It answers ``device_paths``, ``open``, ``close``, ``publish``, ``subscribe``, ``unsubscribe``
and works as a context manager, as the driver does. Once ``expected`` signals are switched on
(``.../ctrl`` set to 1: the board's run starts after the recording is ready), a thread
publishes the trace in chunks the way the driver does: ``sample_id`` counted at the
instrument's raw rate (``decimate_factor`` times the output rate), current and voltage as
float32, each general-purpose input packed eight samples to a byte, least significant bit
first. ``wired`` names the inputs the board's two GPIOs reach (the others read low). After
``stop_after`` samples it falls silent (a lost instrument: the cable pulled, the device still
listed).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

DEVICE = "u/js220/002557"


@attrs.frozen(eq=False)
class Signals:
    """The trace the instrument sees: amperes, volts and the board's two GPIOs (0 or 1)."""

    current: np.ndarray
    voltage: np.ndarray
    gpio0: np.ndarray
    gpio1: np.ndarray


def piecewise(sample_rate: int, pieces: Sequence[tuple[int, float, int]],
              volts: float = 1.8) -> Signals:
    """A trace of ``pieces``: (samples, amperes, state) each, state = gpio0 + 2 x gpio1."""
    lengths = [n for n, _, _ in pieces]
    current = np.repeat([a for _, a, _ in pieces], lengths).astype(np.float32)
    state = np.repeat([s for _, _, s in pieces], lengths).astype(np.uint8)
    return Signals(current, np.full(len(current), volts, np.float32), state & 1,
                   (state >> 1) & 1)


class FakeDriver:
    def __init__(self, signals: Signals, *, devices: Sequence[str] = (DEVICE,),
                 sample_rate: int = 1_000_000, decimate: int = 2, chunk: int = 4000,
                 first: int = 12_345, stop_after: int | None = None,
                 delay: float = 0.0005, wired: tuple[int, int] = (0, 1), expected: int = 4
                 ) -> None:
        self.signals, self.devices, self.sample_rate = signals, list(devices), sample_rate
        self.decimate, self.chunk, self.first = decimate, chunk, first
        self.stop_after, self.delay, self.wired = stop_after, delay, wired
        self.expected = expected
        self.published: list[tuple[str, Any]] = []
        self.opened: list[tuple[str, str]] = []
        self.closed: list[str] = []
        self._subscribers: dict[str, Callable[[str, Any], None]] = {}
        self._on: set[str] = set()
        self._thread: threading.Thread | None = None
        self._running = threading.Event()
        self.done = threading.Event()

    def __enter__(self) -> FakeDriver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finalize()

    def finalize(self) -> None:
        self._running.clear()

    def device_paths(self) -> list[str]:
        return list(self.devices)

    def open(self, device: str, mode: str = "defaults") -> None:
        if device not in self.devices:
            raise RuntimeError(f"no device {device}")
        self.opened.append((device, mode))

    def close(self, device: str) -> None:
        self._running.clear()
        self.closed.append(device)

    def subscribe(self, topic: str, flags: Any, fn: Callable[[str, Any], None]) -> None:
        self._subscribers[topic] = fn

    def unsubscribe(self, topic: str, fn: Callable[[str, Any], None]) -> None:
        self._subscribers.pop(topic, None)

    def publish(self, topic: str, value: Any, timeout: float | None = None) -> None:
        self.published.append((topic, value))
        if topic.endswith("/ctrl") and value:
            self._on.add(topic.replace("/ctrl", "/!data"))
            if len(self._on) == self.expected and not self._thread:
                self._running.set()
                self._thread = threading.Thread(target=self._stream, daemon=True)
                self._thread.start()

    def _series(self, topic: str) -> tuple[np.ndarray, bool]:
        kind = topic.split("/s/", 1)[1]
        if kind.startswith("i/"):
            return self.signals.current, False
        if kind.startswith("v/"):
            return self.signals.voltage, False
        number = int(kind.split("/")[1])
        if number not in self.wired:  # an input nothing is wired to reads low
            return np.zeros(len(self.signals.gpio0), np.uint8), True
        return (self.signals.gpio0 if number == self.wired[0] else self.signals.gpio1), True

    def _stream(self) -> None:
        total = len(self.signals.current)
        limit = total if self.stop_after is None else min(total, self.stop_after)
        for start in range(0, limit, self.chunk):
            if not self._running.is_set():
                break
            stop = min(start + self.chunk, limit)
            for topic, fn in list(self._subscribers.items()):
                series, bits = self._series(topic)
                part = series[start:stop]
                data = np.packbits(part.astype(np.uint8), bitorder="little") if bits else part
                fn(topic, {"sample_id": (self.first + start) * self.decimate,
                           "sample_rate": self.sample_rate * self.decimate,
                           "decimate_factor": self.decimate, "data": data,
                           "utc": 0, "field_id": 0, "index": 0})
            time.sleep(self.delay)
        self.done.set()
