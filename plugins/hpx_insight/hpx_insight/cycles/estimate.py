"""``estimate``: a silicon board's cycles and milliseconds from an emulated instruction profile.

The emulated board must have the silicon board's CPU (its instructions are the silicon's), and
the model must cover both the core (a timing table) and the board (a memory system); anything
else is refused naming what is missing. Estimates are their own metric (``estimated_cycles``),
never mixed with measured counts, and carry the model's version so a later model's numbers are
not compared as if they were the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from hpx_core.sdk.firmware import Board
from hpx_core.sdk.passes import UsageError
from hpx_insight.classes import CLASSES
from hpx_insight.cycles.cost import CORES, CoreModel, region_timings, work_cycles
from hpx_insight.cycles.memory import memory_system, region_map
from hpx_insight.profile import InstructionProfile
from hpx_insight.schemas import ESTIMATE_FILE, ESTIMATE_SCHEMA_ID
from hpx_insight.work import Work

MODEL_VERSION = "hpx-cycles 1"
SCHEMA_ID = ESTIMATE_SCHEMA_ID
FILE_NAME = ESTIMATE_FILE


@attrs.frozen
class SlotEstimate:
    """Estimated cycles of one layer (or the whole inference) per inference, by class."""

    index: int
    name: str
    op: str
    instructions: float
    cycles: float
    classes: dict[str, float]
    counts: dict[str, float]  # instructions by class per inference (for calibration)


@attrs.frozen
class Estimate:
    board: Board
    source_board: str
    layers: tuple[SlotEstimate, ...]
    whole: SlotEstimate
    regions: dict[str, str]
    unmodelled: tuple[str, ...]
    calibration: str | None = None

    def milliseconds(self, cycles: float) -> float:
        return cycles / self.board.clock_hz * 1000.0


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


def _slot(index: int, name: str, op: str, work: Work, cycles: Mapping[str, float]
          ) -> SlotEstimate:
    passes = max(work.passes, 1)
    per_class = {k: cycles.get(k, 0.0) / passes for k in CLASSES}
    counts = {k: v / passes for k, v in work.classes().items()}
    return SlotEstimate(index, name, op, sum(work.per_pass) / passes,
                        sum(per_class.values()), per_class, counts)


def estimate(profile: InstructionProfile, silicon: Board,
             placed: Mapping[str, str] | None = None) -> Estimate:
    """Cycles on ``silicon`` for every layer of ``profile`` and its whole inference.

    ``placed`` maps profile regions that are buffers (names the profile pass was given) to the
    silicon region the silicon board's memory plan puts them in.
    """
    core = core_model(profile.board, silicon)
    system = memory_system(silicon)
    names = profile.region_names
    mapping = region_map(profile.board, silicon, names[:-1], placed)
    timings = region_timings(names, mapping, system.region)
    layers = tuple(_slot(layer.index, layer.name, layer.op, layer.work,
                         work_cycles(layer.work, core, timings)) for layer in profile.layers)
    whole = _slot(-1, "whole inference", "", profile.whole,
                  work_cycles(profile.whole, core, timings))
    return Estimate(silicon, profile.board.name, layers, whole, mapping, system.unmodelled)


def _slot_json(estimate: Estimate, slot: SlotEstimate) -> dict[str, Any]:
    return {"index": slot.index, "name": slot.name, "op": slot.op,
            "instructions": slot.instructions,
            "estimated_cycles": round(slot.cycles, 1),
            "estimated_ms": round(estimate.milliseconds(slot.cycles), 4),
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
        "layers": [_slot_json(estimate, s) for s in estimate.layers],
        "whole": _slot_json(estimate, estimate.whole),
    }


def _calibrated(slot: SlotEstimate, costs: Mapping[str, float]) -> SlotEstimate:
    classes = {k: costs.get(k, 0.0) * slot.counts.get(k, 0.0) for k in CLASSES}
    return attrs.evolve(slot, cycles=sum(classes.values()), classes=classes)


def calibrated(estimate: Estimate, costs: Mapping[str, float], name: str) -> Estimate:
    """``estimate`` with each layer's cycles from a calibration's per-class costs (``name``
    says which, in the bundle)."""
    return attrs.evolve(estimate, layers=tuple(_calibrated(s, costs) for s in estimate.layers),
                        whole=_calibrated(estimate.whole, costs), calibration=name)
