"""The silicon boards' memory systems as the cycle model sees them, and where each emulated
address range lands on them.

A region's ``wait_states`` are cycles each access to it adds beyond the core's own timing (an
uncached region's); a cached region costs only its misses, which the instruction profile counts
with the board's caches simulated (:mod:`hpx_insight.caches`): a line filled for a read or a
fetch, a write that missed. Every figure names its source: a public document, or the fit on
the named calibration set (:mod:`.memory_fit`) where no document gives one; a figure neither
gives is named in the estimate's ``unmodelled`` list, never made up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from hpx_core.sdk.firmware import Board
from hpx_core.sdk.passes import UsageError
from hpx_insight.caches import CacheGeometry, CacheSetup


@attrs.frozen
class LineCosts:
    """What a cached region's misses cost the core: a line filled for a read (and for a fetch
    of code), and a write that missed."""

    read_fill: float
    write_miss: float
    source: str
    at_bound: bool = False  # the fit could say no more than a documented ranking's least


@attrs.frozen
class RegionTiming:
    name: str
    wait_states: int | None
    cached: bool
    source: str
    lines: LineCosts | None = None  # a cached region's miss costs, when known


@attrs.frozen
class MemorySystem:
    board: str
    regions: tuple[RegionTiming, ...]
    unmodelled: tuple[str, ...]
    icache: CacheGeometry | None = None
    dcache: CacheGeometry | None = None
    scope: float = 0.0  # cycles a PMU scope around one kernel call adds (see SCOPE)

    def region(self, name: str) -> RegionTiming:
        for region in self.regions:
            if region.name == name:
                return region
        raise UsageError(f"{self.board} has no memory region {name}",
                         f"regions: {', '.join(r.name for r in self.regions)}")


_TCM = ("Cortex-M55 TRM (Arm 101051), 'Tightly Coupled Memory': TCMs are accessed without the "
        "bus and are never cached; no Ambiq wait-state figure for its TCMs is public: none added")
_CACHED = ("reached through the Cortex-M55's instruction and data caches (Cortex-M55 TRM, "
           "'Memory system'), which Ambiq's start-up enables: hits add nothing, misses cost "
           "their line (below)")
_M4_TCM = ("Apollo4 Plus TCM: the Cortex-M4 reaches it through its D-code bus; no Ambiq "
           "wait-state figure is public: none added")
_M4_CACHED = ("reached through Apollo4 Plus's CPU cache (cachectrl) that Ambiq's HAL enables "
              "at start-up: hits add nothing")
_M4_MISSES = ("cache misses on the Apollo4 Plus (its cachectrl, by the HAL's defaults a 64 KiB "
              "direct-mapped cache of 16-byte lines for code and data, is not simulated: no "
              "public line-fill figure, and no measured Apollo4 Plus table to fit one on)")
_CLOCK = ("line fills in HP mode: the fitted fill costs are cycles at the 96 MHz LP clock "
          "they were measured at, and are used unchanged at 250 MHz")
_INTERFERENCE = ("write-backs of dirty lines, and the bus between the caches and MRAM/shared "
                 "SRAM beyond a line's fill")
FIT_SOURCE = ("fitted on the calibration set by hpx_insight.cycles.memory_fit "
              "(docs/cycle-model.md, 'Memory costs'; benchmarks/cycle_estimate.py --fit)")
RANKING_SOURCE = "neuralSPOT-X user guide, 'Memory placement'"
RANKED = {"mram_read_fill": "sram_read_fill"}
"""Costs a public document ranks (dearer -> cheaper), which the fit keeps: Ambiq's Apollo510
memory table (:data:`RANKING_SOURCE`) gives MRAM as "slow (wait states)" and shared SRAM as
"medium (1+ wait)", so an MRAM line fill costs at least a shared SRAM one."""
_RANKED_SOURCE = (f"{FIT_SOURCE}, kept at least shared SRAM's line fill: Ambiq ranks MRAM "
                  f"slower ({RANKING_SOURCE})")
# The fit's result on the Apollo510 calibration set, its programs built with GCC 15 as the seed's
# were (docs/cycle-model.md, 'Memory costs').
FITTED = {"mram_read_fill": 7.18, "sram_read_fill": 7.18, "sram_write_miss": 5.02,
          "pmu_scope": 268.33}
MRAM_LINES = LineCosts(FITTED["mram_read_fill"], 0.0, _RANKED_SOURCE,
                       at_bound=FITTED["mram_read_fill"] <= FITTED["sram_read_fill"])
SRAM_LINES = LineCosts(FITTED["sram_read_fill"], FITTED["sram_write_miss"], FIT_SOURCE)
M55_ICACHE_WAYS, M55_DCACHE_WAYS, M55_LINE = 2, 4, 32
_M55_GEOMETRY = ("32-byte lines (CMSIS_6 armv7m_cachel1.h, __SCB_DCACHE_LINE_SIZE / "
                 "__SCB_ICACHE_LINE_SIZE, which core_cm55.h includes); a 2-way instruction and "
                 "a 4-way data cache (the Cortex-M55's, as WikiChip's Cortex-M55 page states "
                 "it); replacement: least recently used (assumed: no public document states "
                 "the Cortex-M55's); ")
AP5_CACHE_SIZE = 65536
_AP510_SIZE = ("64 KiB each: Apollo510 EVB's description by Ambiq (Zephyr, "
               "boards/ambiq/apollo510_evb/doc/index.rst)")
_AP330_SIZE = ("64 KiB each, taken from the Apollo510: no public document gives the "
               "Apollo330P's sizes (its HAL's cache interface is the Apollo510's)")


def _apollo5(board: str, tcms: tuple[str, ...], size_source: str) -> MemorySystem:
    geometry = _M55_GEOMETRY + size_source
    return MemorySystem(board, (
        *(RegionTiming(name, 0, False, _TCM) for name in tcms),
        RegionTiming("MCU_MRAM", 0, True, _CACHED, MRAM_LINES),
        RegionTiming("SHARED_SRAM", 0, True, _CACHED, SRAM_LINES),
    ), (_CLOCK, _INTERFERENCE),
        CacheGeometry(AP5_CACHE_SIZE, M55_ICACHE_WAYS, M55_LINE, geometry),
        CacheGeometry(AP5_CACHE_SIZE, M55_DCACHE_WAYS, M55_LINE, geometry),
        FITTED["pmu_scope"])


SYSTEMS: dict[str, MemorySystem] = {
    "apollo510_evb": _apollo5("apollo510_evb", ("MCU_ITCM", "MCU_TCM"), _AP510_SIZE),
    "apollo330mP_evb": _apollo5("apollo330mP_evb", ("MCU_TCM",), _AP330_SIZE),
    "apollo4p_evb": MemorySystem("apollo4p_evb", (
        RegionTiming("MCU_TCM", 0, False, _M4_TCM), RegionTiming("MCU_MRAM", 0, True, _M4_CACHED),
        RegionTiming("SHARED_SRAM", 0, True, _M4_CACHED),
    ), (_M4_MISSES, "bus contention between the D-code and system buses")),
}


def memory_system(board: Board) -> MemorySystem:
    """The model of ``board``'s memory, or one error naming what the model lacks."""
    found = SYSTEMS.get(board.name)
    if found is None:
        covered = ", ".join(sorted(SYSTEMS))
        raise UsageError(
            f"the cycle model has no memory system for {board.name} (its regions' wait states "
            f"and caches)", f"estimate for a board it covers: {covered}")
    return found


def with_lines(system: MemorySystem, costs: Mapping[str, LineCosts]) -> MemorySystem:
    """``system`` with the cached regions ``costs`` names priced at those costs (measured on
    the board by ``hpx calibrate --memory``) instead of the model's."""
    regions = tuple(attrs.evolve(r, lines=costs[r.name]) if r.cached and r.name in costs
                    else r for r in system.regions)
    return attrs.evolve(system, regions=regions)


def undetermined(system: MemorySystem) -> tuple[str, ...]:
    """The cached regions whose line fill the fit could not determine beyond a documented
    ranking's least (MRAM at shared SRAM's cost): a lower bound until the board's own costs
    are measured."""
    return tuple(r.name for r in system.regions if r.lines is not None and r.lines.at_bound)


def undetermined_notes(system: MemorySystem) -> tuple[str, ...]:
    """The estimate's ``unmodelled`` sentence for each :func:`undetermined` region."""
    return tuple(
        f"line fills from {name} beyond the least Ambiq's ranking allows: the calibration set "
        f"cannot determine how much dearer than shared SRAM's they are, so the estimate prices "
        f"them at shared SRAM's cost, a lower bound; measure them on your board with hpx "
        f"calibrate --memory --board {system.board} and pass --memory-calibration"
        for name in undetermined(system))


_BY_USE = ("flash", "tcm", "itcm", "sram", "data", "psram")


def default_region_map(emulated: Board, silicon: Board) -> dict[str, str]:
    """Each emulated region to the silicon region of the same first matching use word (code on
    an emulated board runs from the silicon board's flash: the Apollo SDK links it there)."""
    out: dict[str, str] = {}
    for region in emulated.memory:
        words = ["flash" if w == "code" else w for w in region.uses]
        for word in (*words, *_BY_USE):
            found = silicon.regions_for(word)
            if found:
                out[region.name] = found[0].name
                break
    return out


def region_map(emulated: Board, silicon: Board, names: Sequence[str],
               placed: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every profile region name to a silicon region: ``placed`` (buffer -> silicon region, from
    the silicon board's memory plan) first, the default map for the board's own regions."""
    mapping = default_region_map(emulated, silicon) | dict(placed or {})
    data = silicon.regions_for("data")
    fallback = data[0].name if data else silicon.memory[0].name
    return {name: mapping.get(name, fallback) for name in names}


def cache_setup(emulated: Board, silicon: Board, names: Sequence[str],
                placed: Mapping[str, str] | None) -> CacheSetup | None:
    """The silicon board's caches for the profile pass to simulate over the ranges ``names``
    (in the pass's order); the shared data cache leaves out the ranges the silicon plan
    ``placed`` never caches (TCM). None: the model simulates no caches for this board."""
    system = memory_system(silicon)
    if system.icache is None:
        return None
    mapping = region_map(emulated, silicon, names, placed)
    uncached = tuple(k for k, name in enumerate(names)
                     if not system.region(mapping[name]).cached)
    return CacheSetup(silicon.name, system.icache, system.dcache, uncached)
