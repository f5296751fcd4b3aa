"""A comparison as pages and overlays: the HTML report, its charts, Model Explorer deltas.

The report machinery (templates, filters, SVG rendering, the bundle page) is
:mod:`hpx_core.report`'s; what a comparison looks like is the comparison's own.
"""

from __future__ import annotations

from typing import Any

from matplotlib import rc_context
from matplotlib.ticker import EngFormatter

from hpx_core.compare.diff import Comparison
from hpx_core.compare.policy import PolicyOutcome
from hpx_core.report.charts import (
    BASE_COLOUR,
    BETTER_COLOUR,
    CAND_COLOUR,
    STYLE,
    WORSE_COLOUR,
    layer_chart,
    layer_label,
    new_figure,
    svg_of,
    unit_label,
)
from hpx_core.report.html import render_page


def comparison_report(comparison: Comparison, outcome: PolicyOutcome | None = None) -> str:
    """The HTML page of a comparison (with the policy verdict when one was applied)."""
    matched = bool(comparison.layers)
    return render_page(
        "comparison.html.j2",
        c=comparison,
        outcome=outcome,
        chart=comparison_chart(comparison) if matched else None,
        deltas=delta_chart(comparison) if matched else None,
        base_chart=None if matched else layer_chart(comparison.base),
        cand_chart=None if matched else layer_chart(comparison.candidate),
    )


def comparison_chart(comparison: Comparison) -> str:
    """Base and candidate per matched layer, in layer order."""
    pairs = sorted(comparison.layers, key=lambda d: d.base.index, reverse=True)
    fig = new_figure(2 * len(pairs))
    with rc_context(STYLE):
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
        ax.set_yticks(list(ys), [layer_label(d.candidate) for d in pairs])
        ax.set_xlabel(f"median per inference, {unit_label(comparison.base.units)}")
        ax.legend(loc="lower right")
        ax.spines[["top", "right"]].set_visible(False)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    return svg_of(fig)


def delta_chart(comparison: Comparison) -> str:
    """Candidate minus base per matched layer: red is slower, green is faster."""
    pairs = sorted(comparison.layers, key=lambda d: d.base.index, reverse=True)
    fig = new_figure(len(pairs))
    with rc_context(STYLE):
        ax = fig.add_subplot()
        colours = [WORSE_COLOUR if d.delta > 0 else BETTER_COLOUR for d in pairs]
        bars = ax.barh(
            [layer_label(d.candidate) for d in pairs], [d.delta for d in pairs], color=colours
        )
        ax.bar_label(
            bars, labels=["n/a" if d.pct is None else f"{d.pct:+.2f}%" for d in pairs], padding=3
        )
        ax.axvline(0, color="#424242", linewidth=0.8)
        ax.set_xlabel(f"delta (candidate - base), {unit_label(comparison.base.units)}")
        ax.margins(x=0.15)
        ax.spines[["top", "right"]].set_visible(False)
        ax.xaxis.set_major_formatter(EngFormatter(sep=""))
    return svg_of(fig)


def delta_node_data(comparison: Comparison) -> dict[str, Any]:
    """Each matched layer's delta (candidate - base): green got faster, red got slower.

    Keys are the candidate's layer indices, so load it on the candidate's model. Thresholds are
    upper bounds: values <= -1 green, -1 < value <= 0 white, anything larger red.
    """
    worst = max((d.delta for d in comparison.layers), default=0)
    return {
        "results": {str(d.candidate.index): {"value": d.delta} for d in comparison.layers},
        "thresholds": [
            {"value": -1, "bgColor": "#a5d6a7"},
            {"value": 0, "bgColor": "#ffffff"},
            {"value": max(worst, 1), "bgColor": "#ef9a9a"},
        ],
    }
