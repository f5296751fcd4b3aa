"""The silicon board's caches, as the instruction-profile pass simulates them.

The emulated boards have no caches, but their runs touch the same code and data, line by line,
that the silicon board's would. With a silicon board to estimate for, the pass's plugin
(``plugin/hpx_cache.h``) simulates that board's instruction cache over every translation block
executed and its data cache over every data access it sees, and counts misses per instruction
and address range. The data cache is simulated twice over: one cache shared by every range that
is cached on the silicon board, and one per range as if it alone were cached, so that an
estimate can price a planned buffer moved between cached and uncached memory (the what-if
placements) from the same run. Accesses the plugin counts from the code alone (through ``sp``,
literal loads: :mod:`hpx_insight.static_access`) reach the stack and the code's literal pools,
which stay out of the data cache here: the Apollo boards keep their stack in TCM.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs


@attrs.frozen
class CacheGeometry:
    """A cache of ``size`` bytes, ``ways``-way set-associative, ``line``-byte lines."""

    size: int
    ways: int
    line: int
    source: str

    def arg(self) -> str:
        return f"{self.size}:{self.ways}:{self.line}"

    def json(self) -> dict[str, object]:
        return {"size": self.size, "ways": self.ways, "line": self.line, "source": self.source}


@attrs.frozen
class CacheSetup:
    """What the plugin simulates: the board's caches, and the ranges (by index in the pass's
    ranges) the shared data cache leaves out because the silicon board never caches them."""

    board: str
    icache: CacheGeometry
    dcache: CacheGeometry | None
    uncached: tuple[int, ...] = ()

    def args(self) -> list[str]:
        out = [f"icache={self.icache.arg()}"]
        if self.dcache is not None:
            out.append(f"dcache={self.dcache.arg()}")
        return out + [f"nocache={k}" for k in self.uncached]

    def json(self, names: Sequence[str]) -> dict[str, object]:
        return {"board": self.board, "icache": self.icache.json(),
                "dcache": self.dcache.json() if self.dcache is not None else None,
                "shared_leaves_out": [names[k] for k in self.uncached]}
