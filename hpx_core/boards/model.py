"""A board as data: what the build, the runner and the license check need to know about it."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

import attrs

from hpx_core.errors import ConfigError

BoardKind = Literal["emulated", "silicon"]
RunnerName = Literal["qemu", "probe"]
ClockMode = Literal["lp", "hp"]
"""A performance mode: ``lp`` the clock after reset, ``hp`` the SoC's high-performance mode."""


@attrs.frozen
class MemoryRegion:
    """One region of the memory map (the linker script's MEMORY block mirrors these).

    ``use`` is one or more comma-separated words (``data,tcm``): what the region holds by
    default (``code``, ``data``) and what kind of memory it is (``flash``, ``sram``, ``tcm``,
    ``itcm``, ``psram``, ``stack``); placement options name regions by these words. ``init``
    and ``zero`` are the section attributes that put initialized (e.g. a model) or
    zero-initialized data (an arena) there: ``""`` is the default place, absent is not possible.
    """

    name: str
    origin: int
    length: int
    use: str
    init: str | None = None
    zero: str | None = None

    @property
    def uses(self) -> tuple[str, ...]:
        return tuple(word.strip() for word in self.use.split(","))

    def serves(self, word: str) -> bool:
        return word in self.uses


@attrs.frozen
class QemuSpec:
    """How the QEMU runner starts this board. ``icount_shift``: 2**shift ns per instruction."""

    machine: str
    cpu: str
    icount_shift: int


def _pair(value: Sequence[int] | None) -> tuple[int, int] | None:
    """Two pad numbers from the board file's list."""
    if value is None:
        return None
    first, second = value
    return int(first), int(second)


@attrs.frozen
class SiliconSpec:
    """What building for and talking to a real board needs.

    ``soc`` names the SoC folder of the pinned nsx-ambiq-sdk, ``linker_script`` its GCC script
    (relative to the SDK root); ``pmu_counters`` is how many 32-bit event counters the PMU
    counts at once (0: DWT only). The part has one name for each way of flashing it
    (``hpx_core.probe.route``): ``jlink_device`` in SEGGER J-Link's device list (what Ambiq's
    own tools pass to J-Link), ``pyocd_target`` the CMSIS-pack part pyocd flashes with Ambiq's
    pack. ``boot_handoff`` is how long the secure bootloader needs, after a reset with the
    debugger let go, before it starts the application (seconds). ``hal_library`` is the SDK's
    prebuilt AmbiqSuite HAL for the SoC (relative to the SDK root): only a build in the
    high-performance mode links it, for the HAL's own mode switch and SpotManager.
    ``power_gpios`` are the two pads the SDK drives for an external power monitor
    (``nsx_power_monitor.c``: the state's bit 0 and bit 1), wired to a power instrument's
    general-purpose inputs for energy windows; None: the SDK names none for the part.
    """

    family: str
    soc: str
    linker_script: str
    pyocd_target: str
    transport: str
    pmu_counters: int = 0
    jlink_device: str = ""
    boot_handoff: float = 0.2
    hal_library: str = ""
    power_gpios: tuple[int, int] | None = attrs.field(default=None, converter=_pair)


@attrs.frozen
class Board:
    """A board hpx can build for and, given its runner, run on."""

    name: str
    kind: BoardKind
    description: str
    core: str
    cpu_vendor: str
    clock_hz: int
    counter: str
    runner: RunnerName
    support: str
    cpu_flags: tuple[str, ...]
    features: tuple[str, ...]
    memory: tuple[MemoryRegion, ...]
    qemu: QemuSpec | None = None
    silicon: SiliconSpec | None = None
    clocks: tuple[tuple[str, int], ...] = ()
    """Each performance mode the firmware can run the core in, with its clock (Hz)."""
    clock: ClockMode = "lp"
    """The mode this board runs in; ``clock_hz`` is that mode's clock."""

    @property
    def emulated(self) -> bool:
        return self.kind == "emulated"

    @property
    def family(self) -> str:
        """The board family (``apollo`` for the Apollo EVBs, ``qemu`` for the emulated ones)."""
        return self.silicon.family if self.silicon is not None else "qemu"

    def clock_modes(self) -> tuple[str, ...]:
        return tuple(mode for mode, _ in self.clocks)

    def at_clock(self, mode: ClockMode | str) -> Board:
        """This board in performance mode ``mode`` (its clock_hz that mode's); a mode the
        board does not have is a ConfigError naming those it has."""
        hz = dict(self.clocks).get(mode)
        if hz is None:
            have = ", ".join(self.clock_modes()) or "none"
            hint = ("the emulated boards run at one clock: use --clock hp with an Apollo board "
                    "(--board, or the board an installed pass estimates for)"
                    ) if self.emulated else (
                f"{self.name} runs in: {have}")
            raise ConfigError(f"board {self.name} has no {mode!r} clock mode", hint)
        return attrs.evolve(self, clock="hp" if mode == "hp" else "lp", clock_hz=hz)

    def counter_units(self) -> str:
        """What the host reports counts in (emulated boards count instructions, not cycles)."""
        return "instructions (emulated)" if self.emulated else "cycles"

    def regions_for(self, word: str) -> tuple[MemoryRegion, ...]:
        """The regions whose use includes ``word``, in memory-map order."""
        return tuple(region for region in self.memory if region.serves(word))

    def instructions_per_tick(self) -> Fraction:
        """Exact conversion of SysTick ticks to instructions under ``-icount shift=N``.

        A tick lasts 1e9/clock_hz ns; an instruction advances virtual time by 2**shift ns.
        """
        if self.qemu is None:
            raise ValueError(f"board {self.name} has no icount conversion")
        return Fraction(10**9, self.clock_hz) / Fraction(2**self.qemu.icount_shift)
