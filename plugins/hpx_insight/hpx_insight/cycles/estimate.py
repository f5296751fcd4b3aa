"""``estimate``: a silicon board's cycles and milliseconds from an emulated instruction profile.

The emulated board must have the silicon board's CPU (its instructions are the silicon's), and
the model must cover both the core (a timing table) and the board (a memory system); anything
else is refused naming what is missing. Estimates are their own metric (``estimated_cycles``),
never mixed with measured counts, and carry the model's version so a later model's numbers are
not compared as if they were the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from hpx_core.sdk.firmware import Board
from hpx_core.sdk.passes import UsageError
from hpx_insight.classes import CLASSES
from hpx_insight.cycles.cost import (
    CORES,
    CoreModel,
    MemoryPrices,
    event_cost,
    memory_events,
    region_timings,
    work_cycles,
)
from hpx_insight.cycles.memory import (
    FIT_SOURCE,
    LineCosts,
    MemorySystem,
    RegionTiming,
    memory_system,
    region_map,
    undetermined_notes,
    with_lines,
)
from hpx_insight.profile import InstructionProfile
from hpx_insight.schemas import ESTIMATE_FILE, ESTIMATE_SCHEMA_ID
from hpx_insight.work import Work

MODEL_VERSION = "hpx-cycles 2"
SCHEMA_ID = ESTIMATE_SCHEMA_ID
FILE_NAME = ESTIMATE_FILE


@attrs.frozen
class SlotEstimate:
    """Estimated cycles of one layer (or the whole inference) per inference: the core's by
    class, and what its memory events (line fills, write misses, uncached accesses) add."""

    index: int
    name: str
    op: str
    instructions: float
    cycles: float
    classes: dict[str, float]
    counts: dict[str, float]  # instructions by class per inference (for calibration)
    memory: float = 0.0
    events: dict[str, float] = attrs.field(factory=dict)  # "REGION kind" -> per inference
    calls: float = 1.0  # kernel calls per inference (PMU scopes a per-layer scope adds)


@attrs.frozen
class Estimate:
    board: Board
    source_board: str
    layers: tuple[SlotEstimate, ...]
    whole: SlotEstimate
    regions: dict[str, str]
    unmodelled: tuple[str, ...]
    memory: MemorySystem  # what memory costs: the model's, or measured on the board
    calibration: str | None = None

    @property
    def scope(self) -> float:
        """Cycles one PMU scope adds around a kernel call."""
        return self.memory.scope

    def milliseconds(self, cycles: float) -> float:
        return cycles / self.board.clock_hz * 1000.0

    def scoped(self, slot: SlotEstimate) -> float:
        """The slot as a PMU scope around each kernel call measures it (the whole: with a
        scope around every layer's call)."""
        calls = sum(s.calls for s in self.layers) if slot.index < 0 else slot.calls
        return slot.cycles + self.scope * calls


def core_model(profile_board: Board, silicon: Board) -> CoreModel:
    """The core both boards share, if the model has it; else one error naming what differs."""
    if silicon.emulated:
        raise UsageError(f"{silicon.name} is an emulated board: estimates are for silicon",
                         "name an Apollo board (hpx boards lists them)")
    if profile_board.core != silicon.core:
        raise UsageError(
            f"{profile_board.name} has a {profile_board.core}, {silicon.name} a {silicon.core}: "
            "an estimate needs the silicon's own instructions",
            f"profile on the emulated board with a {silicon.core}")
    model = CORES.get(silicon.core)
    if model is None:
        raise UsageError(f"the cycle model has no timing table for the {silicon.core}",
                         f"cores it covers: {', '.join(sorted(CORES))}")
    return model


def _slot(index: int, name: str, op: str, calls: float, work: Work, core: CoreModel
          ) -> SlotEstimate:
    passes = max(work.passes, 1)
    cycles = work_cycles(work, core)
    per_class = {k: cycles.get(k, 0.0) / passes for k in CLASSES}
    counts = {k: v / passes for k, v in work.classes().items()}
    return SlotEstimate(index, name, op, sum(work.per_pass) / passes,
                        sum(per_class.values()), per_class, counts, calls=calls)


def _priced(slot: SlotEstimate, work: Work, prices: MemoryPrices,
            lookup: Callable[[str], RegionTiming]) -> SlotEstimate:
    passes = max(work.passes, 1)
    events = {event: n / passes for event, n in memory_events(work, prices).items() if n}
    memory = sum(n * event_cost(event, lookup) for event, n in events.items())
    return attrs.evolve(slot, cycles=sum(slot.classes.values()) + memory, memory=memory,
                        events={f"{r} {kind}": n for (r, kind), n in events.items()})


def core_estimate(profile: InstructionProfile, silicon: Board,
                  measured: Mapping[str, LineCosts] | None = None) -> Estimate:
    """The core's cycles on ``silicon`` for every layer of ``profile`` and its whole inference,
    before any memory is priced (:func:`reprice`); ``measured`` line costs (region -> costs,
    from ``hpx calibrate --memory``) replace the model's for the regions they name."""
    core = core_model(profile.board, silicon)
    system = with_lines(memory_system(silicon), measured or {})
    layers = tuple(_slot(layer.index, layer.name, layer.op, layer.calls, layer.work, core)
                   for layer in profile.layers)
    whole = _slot(-1, "whole inference", "", 0, profile.whole, core)
    unmodelled = (*undetermined_notes(system), *system.unmodelled)
    if system.dcache is not None and (profile.caches is None
                                      or profile.caches.board != silicon.name):
        unmodelled = (f"cache misses: this profile was made without {silicon.name}'s caches "
                      "(profile with --estimate-for to simulate them)", *unmodelled)
    return Estimate(silicon, profile.board.name, layers, whole, {}, unmodelled, system)


def reprice(base: Estimate, profile: InstructionProfile,
            placed: Mapping[str, str] | None = None, *, alone: bool = False) -> Estimate:
    """``base`` with its memory priced for buffers placed as ``placed`` says (buffer ->
    silicon region; the rest by their use words), the data misses the shared cache's or, with
    ``alone``, each range's own."""
    silicon, system = base.board, base.memory
    names = profile.region_names
    mapping = region_map(profile.board, silicon, names[:-1], placed)
    code = silicon.regions_for("flash")
    prices = MemoryPrices(tuple(region_timings(names, mapping, system.region)),
                          system.region(code[0].name) if code else None, alone)
    works = {layer.index: layer.work for layer in profile.layers}
    layers = tuple(_priced(s, works[s.index], prices, system.region) for s in base.layers)
    whole = _priced(base.whole, profile.whole, prices, system.region)
    return attrs.evolve(base, layers=layers, whole=whole, regions=mapping)


def estimate(profile: InstructionProfile, silicon: Board,
             placed: Mapping[str, str] | None = None) -> Estimate:
    """Cycles on ``silicon`` for every layer of ``profile`` and its whole inference.

    ``placed`` maps profile regions that are buffers (names the profile pass was given) to the
    silicon region the silicon board's memory plan puts them in.
    """
    return reprice(core_estimate(profile, silicon), profile, placed)


def _slot_json(estimate: Estimate, slot: SlotEstimate) -> dict[str, Any]:
    return {"index": slot.index, "name": slot.name, "op": slot.op,
            "instructions": slot.instructions,
            "estimated_cycles": round(slot.cycles, 1),
            "estimated_ms": round(estimate.milliseconds(slot.cycles), 4),
            "memory_cycles": round(slot.memory, 1),
            "memory_events": {k: round(v, 3) for k, v in slot.events.items()},
            "estimated_cycles_scoped": round(estimate.scoped(slot), 1),
            "classes": {k: round(v, 1) for k, v in slot.classes.items()},
            "counts": {k: round(v, 3) for k, v in slot.counts.items()}}


def estimate_document(estimate: Estimate) -> dict[str, Any]:
    """The bundle file: estimated cycles and milliseconds per layer and whole."""
    return {
        "schema": SCHEMA_ID, "model": MODEL_VERSION, "board": estimate.board.name,
        "source_board": estimate.source_board, "clock_hz": estimate.board.clock_hz,
        "clock": estimate.board.clock,
        "metric": "estimated_cycles", "calibration": estimate.calibration,
        "regions": estimate.regions, "unmodelled": list(estimate.unmodelled),
        "memory_costs": {r.name: {"read_fill": r.lines.read_fill,
                                  "write_miss": r.lines.write_miss, "source": r.lines.source}
                         for r in estimate.memory.regions if r.lines is not None},
        "scope": {"cycles_per_call": estimate.scope, "source": FIT_SOURCE,
                  "means": "estimated_cycles is the kernel alone; estimated_cycles_scoped is "
                           "what a PMU scope around each kernel call measures"},
        "layers": [_slot_json(estimate, s) for s in estimate.layers],
        "whole": _slot_json(estimate, estimate.whole),
    }


def _calibrated(slot: SlotEstimate, costs: Mapping[str, float]) -> SlotEstimate:
    classes = {k: costs.get(k, 0.0) * slot.counts.get(k, 0.0) for k in CLASSES}
    # measured cycles per class hold the memory's share: the calibration prices it in them
    return attrs.evolve(slot, cycles=sum(classes.values()), classes=classes, memory=0.0)


def calibrated(estimate: Estimate, costs: Mapping[str, float], name: str) -> Estimate:
    """``estimate`` with each layer's cycles from a calibration's per-class costs (``name``
    says which, in the bundle)."""
    return attrs.evolve(estimate, layers=tuple(_calibrated(s, costs) for s in estimate.layers),
                        whole=_calibrated(estimate.whole, costs), calibration=name)
