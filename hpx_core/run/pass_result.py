"""What an uncounted pass hands back: its typed finding and everything the run does with it.

The recorder writes ``section`` into ``summary.json`` under the pass's section name and
``files`` beside it; ``hpx profile`` adds the ``shown`` columns to its per-layer table and
prints the lines after it. The finding itself (``value``) stays typed for the callers that
read it (``RunRecord.result``), so no reader recovers it by a section's name and a cast.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic, TypeVar

import attrs

T = TypeVar("T", covariant=True)


@attrs.frozen
class ConsoleSummary:
    """What ``hpx profile`` shows of a pass: per-layer ``columns`` (their ``cells`` by layer
    index, in Rich markup; a layer without cells shows ``blank``) and ``lines`` of plain text
    printed after the table."""

    columns: tuple[str, ...] = ()
    cells: Mapping[int, tuple[str, ...]] = attrs.field(factory=dict)
    blank: str = "-"
    lines: tuple[str, ...] = ()

    def row(self, index: int) -> tuple[str, ...]:
        """The cells of layer ``index`` (``blank`` in each column it has none for)."""
        return self.cells.get(index, (self.blank,) * len(self.columns))


@attrs.frozen
class PassResult(Generic[T]):
    """One uncounted pass's result: ``value`` (its typed finding, None when it found nothing
    to type), the ``section`` of ``summary.json`` it writes (name and JSON), the ``files`` it
    adds to the bundle and what the console shows of it."""

    value: T
    section: str
    document: Mapping[str, Any]
    files: Mapping[str, bytes] = attrs.field(factory=dict)
    shown: ConsoleSummary = attrs.field(factory=ConsoleSummary)
    issues: tuple[str, ...] = ()
    """What went wrong in the pass, for the run's issues (the counts it leaves alone)."""
