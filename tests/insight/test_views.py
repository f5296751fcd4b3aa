"""The profile's views (hpx_insight.views): the HTML section, trace slices and
class deltas, from the selftest's real profile and the bundle's own trace."""

from __future__ import annotations

import copy
import json

import pytest
from hpx_insight.document import profile_document
from hpx_insight.profile import InstructionProfile
from hpx_insight.views import class_deltas, function_slices, html_section

from hpx_core.results.trace import LAYERS_TID
from hpx_core.selftest.run import SelftestReport

pytestmark = pytest.mark.emulated


def test_html_shows_every_layer_with_its_classes_and_functions(
        selftest_profile: InstructionProfile) -> None:
    document = profile_document(selftest_profile)
    section = html_section(document)
    for layer in document["layers"]:
        assert f"<td>{layer['name']}</td>" in section
    assert "hpx_engine_invoke" in section and "selftest_layers.S" in section
    assert "matches the SysTick counts" in section
    assert "<th>float</th>" in section
    assert "<th>divide</th>" not in section  # classes no layer has are left out


def test_function_slices_nest_inside_the_layers_of_the_trace(
        selftest_profile: InstructionProfile, selftest_run: SelftestReport) -> None:
    document = profile_document(selftest_profile)
    bundle = selftest_run.runs[0].bundle
    trace = json.loads((bundle / "trace.json").read_text(encoding="utf-8"))["traceEvents"]
    layers = [e for e in trace if e.get("tid") == LAYERS_TID and e.get("ph") == "X"]
    slices = [e for e in function_slices(document, trace) if e["ph"] == "X"]
    assert slices
    for layer in layers:
        inside = [s for s in slices if s["args"]["layer"] == layer["args"]["index"]
                  and layer["ts"] <= s["ts"] < layer["ts"] + layer["dur"]]
        assert inside and inside[0]["ts"] == layer["ts"]
        assert sum(s["dur"] for s in inside) <= layer["dur"]


def test_class_deltas_pair_layers_by_index(selftest_profile: InstructionProfile) -> None:
    base = profile_document(selftest_profile)
    candidate = copy.deepcopy(base)
    memory = next(layer for layer in candidate["layers"] if layer["name"] == "memory")
    memory["classes"]["load"] += 2 * base["passes"]
    deltas = {d["name"]: d["classes"] for d in class_deltas(base, candidate)}
    assert deltas["memory"]["load"]["delta"] == 2
    assert all(c["delta"] == 0 for name, layer in deltas.items() for k, c in layer.items()
               if (name, k) != ("memory", "load"))
