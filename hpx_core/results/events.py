"""Per-layer event counts on PMU boards: calibrated, named, and merged across passes.

The firmware sends, per pass, which events it counts (EVENTINFO, with what an empty begin/end
pair adds to each) and every event of every layer (LAYEREV). Counts are corrected like the
main counter: the calibrated pair is subtracted once per layer entry. A layer whose 32-bit
event counter wrapped gets no count for that event, and the run says so.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from fractions import Fraction

from hpx_core.wire import Capture


def event_name(number: int, names: Mapping[int, str]) -> str:
    """Arm's name for PMU event ``number`` (``event_0x0008`` when unknown)."""
    return names.get(number, f"event_{number:#06x}")


def _slots(capture: Capture, names: Mapping[int, str]) -> dict[int, tuple[str, Fraction]]:
    cal = capture.first("CAL")
    repeats = cal.number("repeats") if cal else 0
    return {
        r.number("ev"): (
            event_name(r.number("number"), names),
            Fraction(r.number("cal_sum"), repeats) if repeats else Fraction(0),
        )
        for r in capture.of("EVENTINFO")
    }


def layer_events(
    capture: Capture, names: Mapping[int, str]
) -> tuple[dict[int, dict[str, int]], list[str]]:
    """Layer index -> {event name: median corrected count}, and what could not be counted."""
    slots = _slots(capture, names)
    calls = {(r.number("iter"), r.number("idx")): r.number("calls") for r in capture.of("LAYER")}
    samples: dict[tuple[int, str], list[int]] = {}
    wrapped: set[tuple[int, str]] = set()
    issues: list[str] = []
    for r in capture.of("LAYEREV"):
        idx, ev = r.number("idx"), r.number("ev")
        if ev not in slots:
            issues.append(f"layer {idx}: event slot {ev} was never announced")
            continue
        name, pair = slots[ev]
        entries = calls.get((r.number("iter"), idx), 1)
        samples.setdefault((idx, name), []).append(round(r.number("raw") - entries * pair))
        if r.number("ovf"):
            wrapped.add((idx, name))
    events: dict[int, dict[str, int]] = {}
    for (idx, name), values in sorted(samples.items()):
        if (idx, name) in wrapped:
            issues.append(f"layer {idx}: {name} wrapped its 32-bit counter; no count reported")
            continue
        events.setdefault(idx, {})[name] = round(statistics.median(values))
    return events, issues
