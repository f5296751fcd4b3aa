"""The silicon boards' memory systems as the cycle model sees them, and where each emulated
address range lands on them.

A region's ``wait_states`` are cycles each access adds beyond the core's own timing; a cached
region adds them only on a miss, which the instruction profile cannot see (it counts accesses
and bytes, not distinct cache lines), so misses are listed among what the model lacks instead
of being guessed. Every figure names its source; a figure no public document gives is None and
named in the estimate's ``unmodelled`` list, never made up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from hpx_core.sdk.firmware import Board
from hpx_core.sdk.passes import UsageError


@attrs.frozen
class RegionTiming:
    name: str
    wait_states: int | None
    cached: bool
    source: str


@attrs.frozen
class MemorySystem:
    board: str
    regions: tuple[RegionTiming, ...]
    unmodelled: tuple[str, ...]

    def region(self, name: str) -> RegionTiming:
        for region in self.regions:
            if region.name == name:
                return region
        raise UsageError(f"{self.board} has no memory region {name}",
                         f"regions: {', '.join(r.name for r in self.regions)}")


_TCM = ("Cortex-M55 TRM (Arm 101051), 'Tightly Coupled Memory': TCMs are accessed without the "
        "bus; no Ambiq wait-state figure for its TCMs is public: none added")
_CACHED = ("reached through the Cortex-M55's 32-byte-line instruction and data caches (Cortex-M55 "
           "TRM, 'Memory system'), which Ambiq's start-up enables: hits add nothing")
_M4_TCM = ("Apollo4 Plus TCM: the Cortex-M4 reaches it through its D-code bus; no Ambiq "
           "wait-state figure is public: none added")
_M4_CACHED = ("reached through Apollo4 Plus's CPU cache (cachectrl) that Ambiq's HAL enables "
              "at start-up: hits add nothing")
_MISSES = ("cache misses and line fills (the profile counts accesses, not distinct lines, and "
           "Ambiq publishes no line-fill latency)")
SYSTEMS: dict[str, MemorySystem] = {
    "apollo510_evb": MemorySystem("apollo510_evb", (
        RegionTiming("MCU_ITCM", 0, False, _TCM), RegionTiming("MCU_TCM", 0, False, _TCM),
        RegionTiming("MCU_MRAM", 0, True, _CACHED), RegionTiming("SHARED_SRAM", 0, True, _CACHED),
    ), (_MISSES,)),
    "apollo330mP_evb": MemorySystem("apollo330mP_evb", (
        RegionTiming("MCU_TCM", 0, False, _TCM), RegionTiming("MCU_MRAM", 0, True, _CACHED),
        RegionTiming("SHARED_SRAM", 0, True, _CACHED),
    ), (_MISSES,)),
    "apollo4p_evb": MemorySystem("apollo4p_evb", (
        RegionTiming("MCU_TCM", 0, False, _M4_TCM), RegionTiming("MCU_MRAM", 0, True, _M4_CACHED),
        RegionTiming("SHARED_SRAM", 0, True, _M4_CACHED),
    ), (_MISSES, "bus contention between the D-code and system buses")),
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
