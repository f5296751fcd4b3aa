"""A bundle's memory on its page: each region of the board's map as a bar of what the image
places in it, and the stack and the engine's buffers per layer as a chart.

Bars are plain HTML boxes sized in percent of their region (no script, nothing to load), so a
region the image barely touches still reads as nearly empty next to one it fills; the numbers
stand beside every bar. The per-layer chart is matplotlib SVG, like the page's other charts.
"""

from __future__ import annotations

import attrs
from matplotlib import rc_context
from matplotlib.ticker import EngFormatter

from hpx_core.report.charts import BASE_COLOUR, CAND_COLOUR, STYLE, new_figure, svg_of
from hpx_core.results.memory import MemoryUse, RegionFill

# One colour per buffer series after the stack's (an engine reports a few at most).
BUFFER_COLOURS = ("#fb8c00", "#8e24aa", "#43a047", "#6d4c41", "#00897b")


def _share(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


@attrs.frozen
class BarPart:
    """A planned buffer the image holds in a region: its symbol, what it is and its bytes."""

    symbol: str
    what: str
    size: int
    pct: float  # of the region's length


def _bar_parts(values: tuple[BarPart, ...] | list[BarPart]) -> tuple[BarPart, ...]:
    return tuple(values)


@attrs.frozen
class RegionBar:
    """One region's bar: the planned buffers first, then the rest of what the image takes
    there (code, data, bss, the stack's reserve)."""

    name: str
    length: int
    used: int
    parts: tuple[BarPart, ...] = attrs.field(converter=_bar_parts)

    @property
    def pct(self) -> float:
        return _share(self.used, self.length)

    @property
    def rest(self) -> int:
        """Bytes of the image in this region that no planned buffer accounts for."""
        return max(self.used - sum(p.size for p in self.parts), 0)

    @property
    def rest_pct(self) -> float:
        return _share(self.rest, self.length)


def region_bar(fill: RegionFill) -> RegionBar:
    return RegionBar(fill.name, fill.length, fill.used,
                     [BarPart(p.symbol, p.what, p.size, _share(p.size, fill.length))
                      for p in fill.parts])


def region_bars(use: MemoryUse) -> tuple[RegionBar, ...]:
    """Every region of the board's map the memory section lists, in the map's order."""
    return tuple(region_bar(fill) for fill in use.regions)


def memory_series(use: MemoryUse) -> dict[str, list[int | None]]:
    """Per layer (in the memory pass's order): the stack's depth, then each buffer the engine
    reported for layers, None where a layer has no figure."""
    names = sorted({name for layer in use.layers for name in layer.uses})
    series: dict[str, list[int | None]] = {"stack": [x.stack for x in use.layers]}
    for name in names:
        series[name] = [x.uses.get(name) for x in use.layers]
    return series


def memory_chart(use: MemoryUse) -> str:
    """Bytes in use per layer: the stack's deepest point below its top and each reported
    buffer, side by side, the first layer at the top."""
    layers = list(reversed(use.layers))
    series = {k: list(reversed(v)) for k, v in memory_series(use).items()}
    fig = new_figure(len(layers) * max(len(series), 1) // 2 + len(layers))
    colours = (CAND_COLOUR, *BUFFER_COLOURS, BASE_COLOUR)
    height = 0.8 / len(series)
    with rc_context(STYLE):
        ax = fig.add_subplot()
        for k, (name, values) in enumerate(series.items()):
            offset = 0.4 - height * (k + 0.5)
            ax.barh([y + offset for y in range(len(layers))], [v or 0 for v in values],
                    height=height, color=colours[k % len(colours)],
                    label="stack (deepest point)" if name == "stack" else f"{name} in use")
        ax.set_yticks(list(range(len(layers))),
                      [f"{x.index} {x.name} ({x.op})" for x in layers])
        ax.set_xlabel("bytes")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
        ax.spines[["top", "right"]].set_visible(False)
        ax.xaxis.set_major_formatter(EngFormatter(unit="B", sep=""))
    return svg_of(fig)
