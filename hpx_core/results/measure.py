"""Turn a checked capture into counts: subtract the calibrated pair, convert units.

Raw counts are in the counter's units: exact instructions on the emulated boards (the
firmware converts each SysTick span, see hpx_core/boards/icount.py), cycles on silicon. The
host subtracts the empty begin/end pair once per call. Raw values stay beside the corrected
ones.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from fractions import Fraction

import attrs

from hpx_core.boards import Board
from hpx_core.boards.counters import merge_passes
from hpx_core.results.events import layer_events
from hpx_core.wire import Capture


@attrs.frozen
class LayerResult:
    """One layer over all measured iterations."""

    index: int
    name: str
    op: str
    calls: int
    raw: tuple[int, ...]  # per iteration, counter units
    counts: tuple[int, ...]  # per iteration, corrected
    events: Mapping[str, int] = attrs.field(factory=dict)  # PMU boards: median per event

    @property
    def median(self) -> int:
        return round(statistics.median(self.counts))

    @property
    def spread(self) -> int:
        return max(self.counts) - min(self.counts)


@attrs.frozen
class Measurement:
    """The numbers of one run, corrected and converted, with their validity."""

    units: str
    raw_units: str
    per_raw_unit: Fraction  # corrected units per raw unit
    calibration_raw: Fraction  # mean raw count of an empty begin/end pair
    whole_raw: tuple[int, ...]
    whole: tuple[int, ...]
    layers: tuple[LayerResult, ...]
    validity: str = "valid"
    issues: tuple[str, ...] = ()

    @property
    def whole_median(self) -> int:
        return round(statistics.median(self.whole))

    @property
    def layer_sum(self) -> int:
        return sum(layer.median for layer in self.layers)

    @property
    def calibration(self) -> int:
        return round(self.calibration_raw * self.per_raw_unit)


def _units(board: Board, capture: Capture) -> str:
    """The counter's units, labelled as emulated on an emulated board."""
    units = capture.start.text("units")
    return board.counter_units() if board.emulated and units == "instructions" else units


def _convert(raw: int, calls: int, pair: Fraction, ratio: Fraction) -> int:
    return round((raw - calls * pair) * ratio)


def measure(
    capture: Capture, board: Board, event_names: Mapping[int, str] | None = None
) -> Measurement:
    """Corrected per-layer and whole-inference counts from ``capture`` on ``board``.

    ``event_names`` names PMU event numbers (Arm's names, from the board's SDK).
    """
    units, ratio = _units(board, capture), Fraction(1)  # the device sends final units
    cal = capture.first("CAL")
    pair = Fraction(cal.number("sum"), cal.number("repeats")) if cal else Fraction(0)
    whole_raw = [r.number("raw") for r in capture.of("WHOLE")]
    names = capture.layer_names()
    samples: dict[int, list[tuple[int, int]]] = {}
    for r in capture.of("LAYER"):
        samples.setdefault(r.number("idx"), []).append((r.number("raw"), r.number("calls")))
    events, event_issues = layer_events(capture, event_names or {})
    layers = []
    for idx in sorted(samples):
        name, op = names.get(idx, (f"layer_{idx}", "unknown"))
        raws = [raw for raw, _ in samples[idx]]
        counts = [_convert(raw, calls, pair, ratio) for raw, calls in samples[idx]]
        layers.append(LayerResult(idx, name, op, samples[idx][0][1], tuple(raws), tuple(counts),
                                  events.get(idx, {})))
    issues = _issues(capture, layers, whole_raw, cal is not None) + event_issues
    validity = "invalid" if not whole_raw or not layers else ("degraded" if issues else "valid")
    return Measurement(
        units=units,
        raw_units=capture.start.text("units"),
        per_raw_unit=ratio,
        calibration_raw=pair,
        whole_raw=tuple(whole_raw),
        whole=tuple(_convert(raw, 1, pair, ratio) for raw in whole_raw),
        layers=tuple(layers),
        validity=validity,
        issues=tuple(issues),
    )


def _issues(
    capture: Capture, layers: list[LayerResult], whole_raw: list[int], calibrated: bool
) -> list[str]:
    iterations = capture.start.number("iterations")
    issues = []
    if not calibrated:
        issues.append("no calibration record: counts include the counter's own cost")
    if len(whole_raw) != iterations:
        issues.append(f"{len(whole_raw)} whole-inference samples, expected {iterations}")
    for layer in layers:
        if len(layer.counts) != iterations:
            issues.append(f"layer {layer.index} has {len(layer.counts)} of {iterations} samples")
    missing = sorted(set(capture.layer_names()) - {layer.index for layer in layers})
    if missing:
        issues.append(f"layers named but never measured: {missing}")
    return issues


def merge_event_passes(
    first: Measurement, others: Sequence[Measurement], planned: Sequence[str] = ()
) -> Measurement:
    """``first`` with the events of the other passes added, joined by layer identity.

    Every pass repeats warm-up and iterations with its own events; the main counter (cycles)
    comes from the first pass. A ``planned`` event no pass counted makes the run degraded.
    """
    passes = [{layer.index: (layer.name, layer.events) for layer in m.layers}
              for m in (first, *others)]
    merged = merge_passes(passes)
    layers = tuple(attrs.evolve(layer, events=merged.get(layer.index, {}))
                   for layer in first.layers)
    counted = {event for layer in layers for event in layer.events}
    issues = tuple(issue for m in (first, *others) for issue in m.issues) + tuple(
        f"{event} was planned but no pass counted it" for event in planned
        if event not in counted
    )
    validity = "degraded" if first.validity == "valid" and issues else first.validity
    return attrs.evolve(first, layers=layers, issues=issues, validity=validity)
