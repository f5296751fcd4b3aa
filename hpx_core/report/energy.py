"""A bundle's energy on its page: the current through every window the firmware marked, drawn
one after the other with each window's span shaded (whole inferences, then the instrumented
ones with their layers alternating), from the bundle's ``energy_windows.npz``.

The chart shows the instrument's own samples, thinned to at most :data:`POINTS` per window so
the page stays small; the energies in the table beside it are the bundle's, integrated at the
full rate.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
from matplotlib import rc_context
from matplotlib.axes import Axes

from hpx_core.report.charts import BASE_COLOUR, CAND_COLOUR, STYLE, new_figure, svg_of
from hpx_core.results.energy import WINDOWS_FILE

POINTS = 400
LAYER_SHADES = ("#e3f2fd", "#fff3e0")  # state 3 and 2: even and odd layers


def energy_chart(bundle: Path) -> str | None:
    """The windows' current as SVG, None when the bundle keeps no windows."""
    path = bundle / WINDOWS_FILE
    if not path.is_file():
        return None
    with np.load(path) as saved:
        rate = int(saved["sample_rate"])
        lengths = saved["lengths"].tolist()
        current, state = saved["current"], saved["state"]
    fig = new_figure(8)
    with rc_context(STYLE):
        ax = fig.add_subplot()
        start, shown = 0, 0.0
        for length in lengths:
            part = slice(start, start + length)
            step = max(1, length // POINTS)
            times = shown + np.arange(0, length, step) / rate * 1e3
            amps = current[part][::step] * 1e3
            _shade(ax, state[part], shown, rate)
            ax.plot(times, amps, color=CAND_COLOUR, linewidth=0.8)
            ax.axvline(shown, color=BASE_COLOUR, linewidth=0.4)
            start, shown = start + length, shown + length / rate * 1e3
        ax.set_xlabel("time inside the windows, one after the other (ms)")
        ax.set_ylabel("current (mA)")
        ax.spines[["top", "right"]].set_visible(False)
    return svg_of(fig)


def _shade(ax: Axes, state: np.ndarray, at_ms: float, rate: int) -> None:
    """Each stretch of one state inside a window, shaded by layer parity."""
    edges = [0, *(np.flatnonzero(np.diff(state)) + 1).tolist(), len(state)]
    for a, b in itertools.pairwise(edges):
        colour = LAYER_SHADES[0] if state[a] == 3 else LAYER_SHADES[1]
        ax.axvspan(at_ms + a / rate * 1e3, at_ms + b / rate * 1e3, color=colour, linewidth=0)
