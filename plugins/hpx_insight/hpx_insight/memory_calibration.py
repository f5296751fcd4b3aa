"""``hpx calibrate --memory``: each memory region's miss costs, measured on the user's board,
for the cycle model to price memory with instead of its fitted constants.

The core's memory probe (:mod:`hpx_core.sdk.calibration`) walks a buffer in every region, one
access per cache line, over twice the data cache, so a cached region misses on every line and
the core's TCM on none. A region's cost per line is what its walk took beyond the same walk
over the TCM, divided by the lines walked: the line-fill cost of a read, the write-miss cost of
a store, as the core waits for them (a prefetcher or a write buffer that hides part of a miss
on the board hides it here too). The model counts one miss per line touched, so it is priced
per line walked, and the PMU's refill count is kept beside it to show whether the cache missed
where the model says it does.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from hpx_core.sdk import RunError
from hpx_core.sdk.calibration import LINE_BYTES, MemoryProbeRun, WalkResult, baseline_region
from hpx_core.sdk.firmware import Board
from hpx_core.sdk.passes import UsageError, read_regular, schema_problem, strict_json
from hpx_insight.cycles.memory import LineCosts, memory_system

SCHEMA_ID = "hpx.memory-calibration/1"
FILE_NAME = "memory_calibration.json"
MAX_LINE_COST = 1000.0
"""The most cycles a line may cost in a memory calibration: a fill from the slowest Apollo
memory takes tens of cycles; more says the walks were disturbed (an interrupt, a debugger)."""
MAX_FILE_BYTES = 1 << 20
REFILL = "L1D_CACHE_REFILL"
_HINT = "give a file hpx calibrate --memory wrote"
_COST = {"type": "number", "minimum": 0, "maximum": MAX_LINE_COST}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["schema", "board", "clock", "regions"],
    "properties": {
        "schema": {"const": SCHEMA_ID}, "board": {"type": "string"},
        "clock": {"enum": ["lp", "hp"]}, "clock_hz": {"type": "integer", "minimum": 1},
        "baseline": {"type": "string"},
        "regions": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["read_fill"],
            "properties": {"read_fill": _COST,
                           "write_miss": {"anyOf": [_COST, {"type": "null"}]}}}},
    },
}


@attrs.frozen
class RegionCosts:
    """One region's measured costs per line, and what the PMU saw of its walks."""

    region: str
    read_fill: float
    write_miss: float | None  # None: the region holds no writable buffer (MRAM)
    refills_per_line: float | None  # None: the board counts no refills (no PMU)


@attrs.frozen
class MemoryCalibration:
    board: str
    clock: str
    clock_hz: int
    baseline: str
    regions: tuple[RegionCosts, ...]
    run: MemoryProbeRun
    notes: tuple[str, ...]

    def document(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_ID, "board": self.board, "clock": self.clock,
            "clock_hz": self.clock_hz, "baseline": self.baseline, "line_bytes": LINE_BYTES,
            "regions": {r.region: {"read_fill": round(r.read_fill, 3),
                                   "write_miss": None if r.write_miss is None
                                   else round(r.write_miss, 3),
                                   "refills_per_line": r.refills_per_line}
                        for r in self.regions},
            "walks": [{"name": w.walk.name, "region": w.walk.region, "access": w.walk.access,
                       "lines": w.walk.lines, "cycles": w.cycles, "events": w.events}
                      for w in self.run.walks],
            "bundle": self.run.record.bundle.name, "notes": list(self.notes),
        }


def _cost(walk: WalkResult | None, base: WalkResult, notes: list[str]) -> float | None:
    """``walk``'s cycles per line beyond ``base``'s (None: no such walk). A walk faster than
    the baseline costs 0, with a note; one no Apollo memory could take is refused."""
    if walk is None:
        return None
    cost = (walk.cycles - base.cycles) / walk.walk.lines
    if cost > MAX_LINE_COST:
        raise RunError(f"the memory probe's {walk.walk.access} walk over {walk.walk.region} "
                       f"took {cost:,.0f} cycles per line, which no Apollo memory takes",
                       "run it again with nothing else attached to the board (a debugger "
                       "halting the core, an interrupt storm)")
    if cost < 0:
        notes.append(f"{walk.walk.region}: a {walk.walk.access} walk was faster than over "
                     f"{base.walk.region} ({cost:.2f} cycles per line); taken as 0")
    return max(cost, 0.0)


def _refills(walk: WalkResult) -> float | None:
    count = walk.events.get(REFILL)
    return None if count is None else round(count / walk.walk.lines, 3)


def region_costs(run: MemoryProbeRun) -> MemoryCalibration:
    """Each region's costs from the probe's walks (see the module's docstring)."""
    walks = {(w.walk.region, w.walk.access): w for w in run.walks}
    base = baseline_region([w.walk for w in run.walks])
    regions: list[RegionCosts] = []
    notes: list[str] = []
    for region in dict.fromkeys(w.walk.region for w in run.walks if w.walk.region != base):
        read = walks[(region, "read")]
        fill = _cost(read, walks[(base, "read")], notes) or 0.0
        miss = _cost(walks.get((region, "write")), walks[(base, "write")], notes)
        refills = _refills(read)
        if refills is not None and refills < 0.5:
            notes.append(f"{region}: the data cache refilled {refills:.0%} of the lines read; "
                         "is the region cached on this board?")
        regions.append(RegionCosts(region, fill, miss, refills))
    return MemoryCalibration(run.board, run.clock, run.clock_hz, base, tuple(regions), run,
                             tuple(notes))


def load_memory_calibration(path: Path, silicon: Board) -> dict[str, LineCosts]:
    """The measured line costs of a memory calibration made for ``silicon`` in its clock mode
    (a region without a writable buffer keeps the model's write-miss cost)."""
    board, clock = silicon.name, silicon.clock
    data = read_regular(path, limit=MAX_FILE_BYTES, what="memory calibration", hint=_HINT)
    document = _parsed(data, path)
    if document["board"] != board:
        raise UsageError(f"{path} measures {document['board']}, not {board}",
                         f"run hpx calibrate --memory --board {board}")
    if document["clock"] != clock:
        raise UsageError(f"{path} was measured at the {document['clock']} clock, the estimate "
                         f"is at {clock}: a miss costs other cycles at another clock",
                         f"run hpx calibrate --memory --board {board} --clock {clock}")
    model = {r.name: r.lines for r in memory_system(silicon).regions if r.lines}
    source = f"measured on {board} at the {clock} clock by hpx calibrate --memory ({path.name})"
    out = {}
    for name, costs in document["regions"].items():
        write = costs.get("write_miss")
        if write is None:
            write = model[name].write_miss if name in model else 0.0
        out[name] = LineCosts(float(costs["read_fill"]), float(write), source)
    return out


def _parsed(data: bytes, path: Path) -> dict[str, Any]:
    try:
        document = strict_json(data)
    except ValueError as error:
        raise UsageError(f"the memory calibration {path} is not JSON ({error})", _HINT) from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA_ID:
        raise UsageError(f"{path} is not an hpx memory calibration", _HINT)
    problem = schema_problem(SCHEMA, document)
    if problem:
        raise UsageError(f"the memory calibration {path} is damaged: {problem}", _HINT)
    return document


def calibration_text(result: MemoryCalibration) -> str:
    """The file hpx calibrate --memory writes."""
    return json.dumps(result.document(), indent=2, allow_nan=False) + "\n"


def walk_rows(result: MemoryCalibration) -> Sequence[tuple[str, ...]]:
    """The console's rows: each walk's cycles, per line, and the refills seen."""
    return [(w.walk.name, f"{w.cycles:,}", f"{w.cycles / w.walk.lines:.2f}",
             "-" if REFILL not in w.events else f"{w.events[REFILL]:,}")
            for w in result.run.walks]
