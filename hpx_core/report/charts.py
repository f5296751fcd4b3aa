"""Charts as inline SVG, drawn with matplotlib.

Why matplotlib SVG rather than plotly: a report must open offline and stay small enough to
keep beside every bundle. Plotly would inline about 4.5 MB of JavaScript per page; an SVG is a
few tens of KB, needs no script at all (so nothing can fail in the browser console), prints,
and diffs. Text stays text (``svg.fonttype: none``) and the output is deterministic (fixed hash
salt, no date), so two reports of one bundle are byte-identical.
"""

from __future__ import annotations

import io
import re
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.ticker import EngFormatter

from hpx_core.results.view import BundleView, LayerView

BASE_COLOUR = "#90a4ae"
CAND_COLOUR = "#1e88e5"
WORSE_COLOUR = "#e53935"
BETTER_COLOUR = "#43a047"
STYLE: dict[Any, Any] = {"svg.fonttype": "none", "svg.hashsalt": "hpx", "font.size": 9}


def svg_of(fig: Figure) -> str:
    out = io.StringIO()
    with rc_context(STYLE):
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = out.getvalue()
    return text[text.index("<svg") :]  # drop the XML declaration and DOCTYPE for inline use


def layer_label(layer: LayerView) -> str:
    name = layer.name if layer.name.startswith(f"{layer.index}_") else f"{layer.index} {layer.name}"
    return f"{name} ({layer.op})"


def new_figure(rows: int) -> Figure:
    with rc_context(STYLE):
        return Figure(figsize=(8.5, 1.2 + 0.28 * max(rows, 1)), layout="constrained")


def unit_label(units: str) -> str:
    return re.sub(r"\s+", " ", units).strip()


def layer_chart(view: BundleView) -> str:
    """Median count per layer, top layer first, each bar labelled with its share of the sum."""
    layers = list(reversed(view.layers))
    total = view.layer_sum or 0
    fig = new_figure(len(layers))
    with rc_context(STYLE):
        ax = fig.add_subplot()
        bars = ax.barh([layer_label(x) for x in layers], [x.median for x in layers],
                       color=CAND_COLOUR)
        ax.bar_label(
            bars,
            labels=[f"{100 * x.median / total:.1f}%" if total else "" for x in layers],
            padding=3,
        )
        ax.set_xlabel(f"median per inference, {unit_label(view.units)}")
        ax.margins(x=0.12)
        ax.spines[["top", "right"]].set_visible(False)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    return svg_of(fig)
