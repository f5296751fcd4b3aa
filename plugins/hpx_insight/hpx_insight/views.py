"""The instruction profile in the other views of a bundle: an HTML section, nested function
slices for ``trace.json``, and per-layer class deltas for ``hpx compare``.

Each takes the bundle file's document (``instruction_profile.json``) as it was read, so the
report, the trace and the comparison need nothing of the run that made it. Counts in the
document are totals over its passes; these views show one pass (an inference).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from hpx_core.sdk.passes import LAYERS_TID, PID

FUNCTIONS_TID = 3
TOP_SHOWN = 5


def _per_pass(document: Mapping[str, Any], value: float) -> float:
    return value / max(int(document.get("passes", 1)), 1)


def html_section(document: Mapping[str, Any]) -> str:
    """Per layer: its instructions by class (one inference) and its top functions."""
    classes = [c for c in document["classes"]
               if any(layer["classes"].get(c) for layer in document["layers"])]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in classes)
    rows = []
    for layer in document["layers"]:
        cells = "".join(f"<td>{_per_pass(document, layer['classes'][c]):,.0f}</td>"
                        for c in classes)
        top = "<br>".join(
            f"{html.escape(f['name'])} <small>{html.escape(f['location'])}</small> "
            f"({f['share']:.0%})" for f in layer["functions"][:TOP_SHOWN])
        rows.append(f"<tr><td>{layer['index']}</td><td>{html.escape(layer['name'])}</td>"
                    f"<td>{layer['instructions'][0]:,}</td>{cells}<td>{top}</td></tr>")
    note = ("matches the SysTick counts" if document.get("counter_agrees")
            else "DIFFERS from the SysTick counts")
    return (f'<section class="instruction-profile"><h2>Instruction profile '
            f'({html.escape(str(document["board"]))}, {note})</h2>'
            f"<table><thead><tr><th>#</th><th>layer</th><th>instructions</th>{head}"
            f"<th>top functions</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            "</section>")


def function_slices(document: Mapping[str, Any], layer_events: Sequence[Mapping[str, Any]]
                    ) -> list[dict[str, Any]]:
    """Slices of each layer's top functions inside its slices of ``trace.json``'s layers
    track: laid end to end from the layer's start, each as long as its instructions."""
    by_index = {layer["index"]: layer for layer in document["layers"]}
    events: list[dict[str, Any]] = [{"name": "thread_name", "ph": "M", "pid": PID,
                                     "tid": FUNCTIONS_TID,
                                     "args": {"name": "functions (instruction profile)"}}]
    for slice_ in layer_events:
        if slice_.get("tid") != LAYERS_TID or slice_.get("ph") != "X":
            continue
        layer = by_index.get(slice_.get("args", {}).get("index"))
        if layer is None:
            continue
        start, end = float(slice_["ts"]), float(slice_["ts"]) + float(slice_["dur"])
        for function in layer["functions"]:
            length = min(float(function["instructions"]), end - start)
            if length <= 0:
                break
            events.append({"name": function["name"], "cat": "function", "ph": "X",
                           "ts": start, "dur": length, "pid": PID, "tid": FUNCTIONS_TID,
                           "args": {"location": function["location"],
                                    "layer": layer["index"]}})
            start += length
    return events


def class_deltas(base: Mapping[str, Any], candidate: Mapping[str, Any]
                 ) -> list[dict[str, Any]]:
    """Per layer both documents have (by index): each class's instructions per inference in
    both and the change, in the order of the base's layers."""
    theirs = {layer["index"]: layer for layer in candidate["layers"]}
    out = []
    for layer in base["layers"]:
        other = theirs.get(layer["index"])
        if other is None:
            continue
        changes = {}
        for name in base["classes"]:
            before = _per_pass(base, layer["classes"].get(name, 0))
            after = _per_pass(candidate, other["classes"].get(name, 0))
            if before or after:
                changes[name] = {"base": before, "candidate": after, "delta": after - before}
        out.append({"index": layer["index"], "name": layer["name"], "classes": changes})
    return out


def estimate_html(document: Mapping[str, Any]) -> str:
    """The cycle estimate per layer and whole, under its own name: never a measured count."""
    rows = "".join(
        f"<tr><td class=\"n\">{s['index']}</td><td>{html.escape(str(s['name']))}</td>"
        f"<td>{html.escape(str(s['op']))}</td><td class=\"n\">{s['instructions']:,}</td>"
        f"<td class=\"n\">{s['estimated_cycles']:,.0f}</td>"
        f"<td class=\"n\">{s['estimated_ms']:.4f}</td></tr>"
        for s in [*document["layers"], document["whole"]])
    calibration = document.get("calibration")
    how = f"calibrated with {html.escape(str(calibration))}" if calibration else "uncalibrated"
    unmodelled = "".join(f"<li>{html.escape(str(u))}</li>" for u in document["unmodelled"])
    board, source = (html.escape(str(document[k])) for k in ("board", "source_board"))
    placements = placements_html(document)
    return (f'<section class="cycle-estimate"><h2>Estimated cycles on {board} (from {source}'
            f", model {html.escape(str(document['model']))}, {how})</h2>"
            "<p>An estimate from the instruction profile, not a measurement: compare it with "
            "measured cycles only knowingly.</p>"
            "<table><thead><tr><th>#</th><th>layer</th><th>op</th><th>instructions</th>"
            f"<th>estimated cycles</th><th>estimated ms</th></tr></thead><tbody>{rows}</tbody>"
            f"</table>{placements}{memory_costs_html(document)}<p>Not modelled:</p>"
            f"<ul>{unmodelled}</ul></section>")


def memory_costs_html(document: Mapping[str, Any]) -> str:
    """What a miss costs in each cached region and where the figure comes from (the fit, or
    the board measured by hpx calibrate --memory); empty for an estimate without them."""
    costs = document.get("memory_costs") or {}
    rows = "".join(
        f"<tr><td>{html.escape(str(region))}</td><td class=\"n\">{c['read_fill']:.2f}</td>"
        f"<td class=\"n\">{c['write_miss']:.2f}</td><td>{html.escape(str(c['source']))}</td>"
        "</tr>" for region, c in costs.items())
    if not rows:
        return ""
    return ('<table class="memory-costs"><thead><tr><th>region</th><th>cycles per line filled'
            "</th><th>cycles per write miss</th><th>source</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def placements_html(document: Mapping[str, Any]) -> str:
    """The what-if table: every priced plan of the buffers, cheapest first, the default
    marked; empty when the estimate priced none."""
    plans = sorted(document.get("placements") or [], key=lambda p: p["estimated_cycles"])
    if not plans:
        return ""
    rows = "".join(
        f"<tr><td>{'default' if p['default'] else ''}</td><td>"
        + "<br>".join(f"{html.escape(str(b))}: {html.escape(str(r))}"
                      for b, r in sorted(p["buffers"].items()))
        + f"</td><td class=\"n\">{p['estimated_cycles']:,.0f}</td>"
        f"<td class=\"n\">{p['estimated_ms']:.4f}</td><td>{html.escape(str(p['misses']))}</td>"
        "</tr>" for p in plans)
    best = html.escape(str(document.get("best_placement", "")))
    return ('<h3 class="placements">What if the buffers were placed elsewhere</h3>'
            f"<p>{best}</p><table><thead><tr><th>plan</th><th>buffers</th>"
            "<th>estimated cycles</th><th>estimated ms</th><th>misses priced</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")

