"""A run's energy windows, recorded while the probe has let go of the part.

At the firmware's ``POWER`` record the probe runner starts the instrument (every signal
streaming), writes the firmware's go (``hpx_power_go``) and closes its session, so neither the
debugger's current nor RTT's traffic lands in a window (firmware_templates/harness/
hpx_power.h). :meth:`PowerRun.finish` waits until the board has marked every window, the
instrument stops streaming or the time is up; the runner then attaches again, without a reset,
and reads the rest of the stream.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from hpx_core.errors import PowerError, RunError
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.power.joulescope import DEFAULT_RATE, STALL_SECONDS, Recording, Wiring
from hpx_core.power.trace import PowerTrace

GO_SYMBOL = "hpx_power_go"
WIRING_HINT = ("check that the instrument's inputs are wired to the board's power GPIOs "
               "(docs/apollo-boards.md, \"Energy\")")


@attrs.frozen
class PowerRun:
    """The instrument a run records (``device`` through ``driver``) and the ``windows`` the
    firmware's power pass marks: its whole inferences and as many instrumented ones."""

    driver: Any
    device: str
    windows: int
    sample_rate: int = DEFAULT_RATE
    wiring: Wiring = attrs.field(factory=Wiring)
    timeout: float = 120.0
    poll: float = 0.1
    stall: float = STALL_SECONDS

    def start(self) -> Recording:
        """The instrument streaming every signal (before the go: the trace starts idle)."""
        recording = Recording(self.driver, self.device, sample_rate=self.sample_rate,
                              wiring=self.wiring)
        recording.start()
        try:
            recording.wait_ready(self.stall)
        except BaseException:
            recording.release()
            raise
        return recording

    def finish(self, recording: Recording, clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], None] = time.sleep) -> PowerTrace:
        """The trace once every window has closed; PowerError when the instrument stops
        streaming or the board has not marked them all within ``timeout``."""
        deadline = clock() + self.timeout
        try:
            while (closed := recording.windows_closed()) < self.windows:
                recording.check(self.stall)
                if clock() > deadline:
                    raise PowerError(f"the board marked {closed} of {self.windows} energy "
                                     f"windows within {self.timeout:g} s", WIRING_HINT)
                sleep(self.poll)
        except BaseException:
            recording.release()
            raise
        return recording.stop()


def go_address(elf: Path) -> int:
    """Where the firmware waits for the host's go; RunError when it has no power pass."""
    for symbol in symbol_inventory(elf).symbols:
        if symbol.name == GO_SYMBOL:
            return symbol.address
    raise RunError(f"{elf.name} has no power pass ({GO_SYMBOL} is not in it)",
                   "build the firmware with --power")
