"""The validation bundle's page: the metric table and a histogram of each output's per-sample
largest difference (one self-contained HTML file, as every report)."""

from __future__ import annotations

from typing import Any

from matplotlib import rc_context

from hpx_core.report.charts import CAND_COLOUR, STYLE, new_figure, svg_of
from hpx_core.report.html import render_page
from hpx_core.validation.data import saturation_warnings


def histogram_chart(output: dict[str, Any]) -> str:
    """Samples per bin of the largest difference from the host."""
    histogram = output["histogram"]
    edges, counts = histogram["edges"], histogram["counts"]
    fig = new_figure(6)
    with rc_context(STYLE):
        ax = fig.add_subplot()
        width = (edges[1] - edges[0]) if len(edges) > 1 and edges[1] > edges[0] else 1.0
        ax.bar(edges[:len(counts)], counts, width=width, align="edge", color=CAND_COLOUR)
        ax.set_xlabel(f"largest |device - host| in a sample ({output['dtype']})")
        ax.set_ylabel("samples")
    return svg_of(fig)


def validation_page(document: dict[str, Any]) -> str:
    """``document``: :func:`hpx_core.validation.bundle.read_validation`'s."""
    return render_page("validation.html.j2", identity=document["identity"],
                       data=document["data"], outputs=document["outputs"],
                       warnings=saturation_warnings(document["data"]["saturated"]),
                       speed=document["speed"],
                       charts=[histogram_chart(o) for o in document["outputs"]])
