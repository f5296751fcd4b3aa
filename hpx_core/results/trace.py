"""``trace.json``: a run's counts in the Chrome trace-event format (Perfetto UI, chrome://tracing).

The format's time axis is microseconds; hpx has no wall clock, so one microsecond on the axis
is one unit of the run's counter (instructions on the emulated boards, cycles on silicon), and
the process name, every slice's ``args`` and ``otherData`` say so. Each measured iteration lays
its layers end to end as complete (``X``) slices on the "layers" track, the uninstrumented
whole inferences on their own track; a PMU event becomes a counter (``C``) track whose value
during a layer is that layer's count of the event. A layer's slices sum to its counts in the
bundle, iteration by iteration. A run that measured energy (``--power``) adds an "energy (µJ)"
counter track whose value during a layer is that layer's median µJ in the power pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpx_core.results.measure import Measurement

ENERGY_TRACK = "energy (µJ)"

PID = 1
WHOLE_TID = 1
LAYERS_TID = 2


def _meta(name: str, tid: int, value: str) -> dict[str, Any]:
    return {"name": name, "ph": "M", "pid": PID, "tid": tid, "args": {"name": value}}


def _whole(m: Measurement, unit: str) -> list[dict[str, Any]]:
    events, start = [], 0
    for i, count in enumerate(m.whole):
        events.append({"name": "whole inference", "cat": "whole", "ph": "X", "ts": start,
                       "dur": count, "pid": PID, "tid": WHOLE_TID,
                       "args": {"iteration": i, unit: count}})
        start += count
    return events


def _layers(m: Measurement, unit: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    iterations = min((len(layer.counts) for layer in m.layers), default=0)
    start = 0
    for i in range(iterations):
        for layer in m.layers:
            count = layer.counts[i]
            events.append({"name": layer.name, "cat": layer.op, "ph": "X", "ts": start,
                           "dur": count, "pid": PID, "tid": LAYERS_TID,
                           "args": {"iteration": i, "index": layer.index, "op": layer.op,
                                    unit: count, **dict(layer.events)}})
            if layer.events:
                events.append({"name": "PMU events", "ph": "C", "ts": start, "pid": PID,
                               "args": dict(layer.events)})
            start += count
        if any(layer.events for layer in m.layers):
            events.append({"name": "PMU events", "ph": "C", "ts": start, "pid": PID,
                           "args": dict.fromkeys(m.layers[0].events, 0)})
    return events


def _energy(m: Measurement, layer_uj: Mapping[int, float]) -> list[dict[str, Any]]:
    """Each layer's µJ as a counter over its slices of the layers track, 0 between
    iterations."""
    events: list[dict[str, Any]] = []
    iterations = min((len(layer.counts) for layer in m.layers), default=0)
    start = 0
    for i in range(iterations):
        for layer in m.layers:
            events.append({"name": ENERGY_TRACK, "ph": "C", "ts": start, "pid": PID,
                           "args": {"uJ": layer_uj.get(layer.index, 0.0)}})
            start += layer.counts[i]
        events.append({"name": ENERGY_TRACK, "ph": "C", "ts": start, "pid": PID,
                       "args": {"uJ": 0.0}})
    return events


def trace_json(measurement: Measurement | None, label: str, units: str,
               layer_uj: Mapping[int, float] | None = None) -> dict[str, Any]:
    """The trace of one run (only its track names when nothing was measured); ``layer_uj``:
    each layer's energy, by layer index."""
    unit = (measurement.units if measurement else units) or "counts"
    base = f"time base: {unit}, 1 us = 1 {unit.split(' ')[0].rstrip('s')}"
    events = [_meta("process_name", 0, f"hpx {label} ({base})"),
              _meta("thread_name", WHOLE_TID, "whole inference (uninstrumented)"),
              _meta("thread_name", LAYERS_TID, "layers (instrumented pass)")]
    if measurement is not None:
        events += _whole(measurement, unit) + _layers(measurement, unit)
        if layer_uj:
            events += _energy(measurement, layer_uj)
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"time_base": unit, "note": f"timestamps and durations are {unit}, "
                          "not microseconds: one microsecond on the axis is one unit"}}
