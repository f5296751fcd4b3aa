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

from hpx_core.compare.diff import Comparison
from hpx_core.compare.view import BundleView, LayerView

BASE_COLOUR = "#90a4ae"
CAND_COLOUR = "#1e88e5"
WORSE_COLOUR = "#e53935"
BETTER_COLOUR = "#43a047"
_RC: dict[Any, Any] = {"svg.fonttype": "none", "svg.hashsalt": "hpx", "font.size": 9}


def _svg(fig: Figure) -> str:
    out = io.StringIO()
    with rc_context(_RC):
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = out.getvalue()
    return text[text.index("<svg") :]  # drop the XML declaration and DOCTYPE for inline use


def _label(layer: LayerView) -> str:
    name = layer.name if layer.name.startswith(f"{layer.index}_") else f"{layer.index} {layer.name}"
    return f"{name} ({layer.op})"


def _figure(rows: int) -> Figure:
    with rc_context(_RC):
        return Figure(figsize=(8.5, 1.2 + 0.28 * max(rows, 1)), layout="constrained")


def _sanitize(units: str) -> str:
    return re.sub(r"\s+", " ", units).strip()


def layer_chart(view: BundleView) -> str:
    """Median count per layer, top layer first, each bar labelled with its share of the sum."""
    layers = list(reversed(view.layers))
    total = view.layer_sum or 0
    fig = _figure(len(layers))
    with rc_context(_RC):
        ax = fig.add_subplot()
        bars = ax.barh([_label(x) for x in layers], [x.median for x in layers], color=CAND_COLOUR)
        ax.bar_label(
            bars,
            labels=[f"{100 * x.median / total:.1f}%" if total else "" for x in layers],
            padding=3,
        )
        ax.set_xlabel(f"median per inference, {_sanitize(view.units)}")
        ax.margins(x=0.12)
        ax.spines[["top", "right"]].set_visible(False)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    return _svg(fig)


def comparison_chart(comparison: Comparison) -> str:
    """Base and candidate per matched layer, in layer order."""
    pairs = sorted(comparison.layers, key=lambda d: d.base.index, reverse=True)
    fig = _figure(2 * len(pairs))
    with rc_context(_RC):
        ax = fig.add_subplot()
        ys = range(len(pairs))
        ax.barh(
            [y + 0.2 for y in ys],
            [d.base.median for d in pairs],
            height=0.4,
            color=BASE_COLOUR,
            label=f"base: {comparison.base.label}",
        )
        ax.barh(
            [y - 0.2 for y in ys],
            [d.candidate.median for d in pairs],
            height=0.4,
            color=CAND_COLOUR,
            label=f"candidate: {comparison.candidate.label}",
        )
        ax.set_yticks(list(ys), [_label(d.candidate) for d in pairs])
        ax.set_xlabel(f"median per inference, {_sanitize(comparison.base.units)}")
        ax.legend(loc="lower right")
        ax.spines[["top", "right"]].set_visible(False)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    return _svg(fig)


def delta_chart(comparison: Comparison) -> str:
    """Candidate minus base per matched layer: red is slower, green is faster."""
    pairs = sorted(comparison.layers, key=lambda d: d.base.index, reverse=True)
    fig = _figure(len(pairs))
    with rc_context(_RC):
        ax = fig.add_subplot()
        colours = [WORSE_COLOUR if d.delta > 0 else BETTER_COLOUR for d in pairs]
        bars = ax.barh(
            [_label(d.candidate) for d in pairs], [d.delta for d in pairs], color=colours
        )
        ax.bar_label(
            bars, labels=["n/a" if d.pct is None else f"{d.pct:+.2f}%" for d in pairs], padding=3
        )
        ax.axvline(0, color="#424242", linewidth=0.8)
        ax.set_xlabel(f"delta (candidate - base), {_sanitize(comparison.base.units)}")
        ax.margins(x=0.15)
        ax.spines[["top", "right"]].set_visible(False)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    return _svg(fig)
