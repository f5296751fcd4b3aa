"""trace.json: valid against the Trace Event Format's JSON object format, and its slices sum to
the bundle's per-layer counts."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from check_bundles import checked_bundle

from hpx_core.results import verify_bundle
from hpx_core.results.trace import trace_json

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "support" /
                     "trace_event_schema.json").read_text("utf-8"))


def _check(trace: dict[str, Any]) -> None:
    jsonschema.validate(trace, SCHEMA, format_checker=jsonschema.FormatChecker())


def test_the_schema_refuses_what_the_viewers_cannot_read() -> None:
    good = {"traceEvents": [{"name": "a", "ph": "X", "ts": 0, "dur": 3, "pid": 1, "tid": 1}]}
    _check(good)
    for bad in ({"name": "a", "ph": "X", "ts": 0, "pid": 1, "tid": 1},  # no dur
                {"name": "a", "ph": "X", "ts": 0, "dur": -1, "pid": 1, "tid": 1},
                {"name": "c", "ph": "C", "ts": 0, "pid": 1, "args": {"x": "many"}},
                {"name": "a", "ph": "Q", "ts": 0, "pid": 1}):
        with pytest.raises(jsonschema.ValidationError):
            _check({"traceEvents": [bad]})


@pytest.mark.emulated
def test_a_bundle_s_trace_is_valid_and_its_slices_sum_to_the_layer_counts() -> None:
    bundle = checked_bundle("exact")
    assert "trace.json" in verify_bundle(bundle).files
    trace = json.loads((bundle / "trace.json").read_text())
    _check(trace)
    summary = json.loads((bundle / "summary.json").read_text())
    measurement = summary["measurement"]
    assert measurement["units"] in trace["otherData"]["time_base"]
    slices: dict[int, list[int]] = defaultdict(list)
    for event in trace["traceEvents"]:
        if event["ph"] == "X" and event["cat"] != "whole":
            slices[event["args"]["index"]].append(event["dur"])
    for layer in measurement["layers"]:
        assert slices[layer["index"]] == layer["samples"]
    wholes = [e["dur"] for e in trace["traceEvents"] if e.get("cat") == "whole"]
    assert wholes == measurement["whole_inference"]["samples"]


def test_pmu_events_become_a_counter_track_and_failed_runs_still_get_a_trace() -> None:
    from fractions import Fraction

    from hpx_core.results.measure import LayerResult, Measurement

    layers = tuple(LayerResult(i, f"l{i}", "OP", 1, (10, 11), (10, 11),
                               {"L1D_CACHE_REFILL": 3 + i}) for i in range(2))
    m = Measurement("cycles", "cycles", Fraction(1), Fraction(0), (25, 25), (25, 25), layers)
    trace = trace_json(m, "apollo510_evb tflm", "cycles")
    _check(trace)
    counters = [e for e in trace["traceEvents"] if e["ph"] == "C"]
    assert [c["args"]["L1D_CACHE_REFILL"] for c in counters] == [3, 4, 0, 3, 4, 0]
    assert [c["ts"] for c in counters] == [0, 10, 20, 20, 31, 42]
    empty = trace_json(None, "qemu-m55 tflm", "instructions (emulated)")
    _check(empty)
    assert all(e["ph"] == "M" for e in empty["traceEvents"])
    assert "1 us = 1 instruction" in empty["traceEvents"][0]["args"]["name"]


def test_each_layers_energy_becomes_a_counter_over_its_slices() -> None:
    from fractions import Fraction

    from hpx_core.results.measure import LayerResult, Measurement
    from hpx_core.results.trace import ENERGY_TRACK

    layers = tuple(LayerResult(i, f"l{i}", "OP", 1, (10, 11), (10, 11)) for i in range(2))
    m = Measurement("cycles", "cycles", Fraction(1), Fraction(0), (25, 25), (25, 25), layers)
    trace = trace_json(m, "apollo510_evb tflm", "cycles", {0: 1.25, 1: 0.5})
    _check(trace)
    energy = [e for e in trace["traceEvents"] if e["name"] == ENERGY_TRACK]
    assert [e["args"]["uJ"] for e in energy] == [1.25, 0.5, 0.0, 1.25, 0.5, 0.0]
    assert [e["ts"] for e in energy] == [0, 10, 20, 20, 31, 42]
    assert not [e for e in trace_json(m, "x", "cycles")["traceEvents"]
                if e["name"] == ENERGY_TRACK]
