"""The firmware's windows in a power trace and the energy inside each.

The board's state is ``0`` (idle) between inferences and non-zero while one runs. In the whole
pass an inference holds state 3 from start to end; in the per-layer pass layer ``i`` holds 3
when ``i`` is even and 2 when it is odd, so consecutive layers meet without a gap and their
energies add up to the inference's. Energy is the sum of current x voltage over the window's
samples divided by the sample rate (the instrument's own samples, no resampling); the idle
floor is the mean power of the idle samples between the first window and the last. The
firmware's power pass marks its whole inferences first, then its instrumented ones
(:func:`pass_energy`).
"""

from __future__ import annotations

import itertools
import statistics

import attrs
import numpy as np

from hpx_core.errors import PowerError
from hpx_core.power.trace import PowerTrace

MICRO = 1e6
MILLI = 1e3


@attrs.frozen
class Window:
    """Samples ``start`` to ``stop`` (exclusive) of one state."""

    start: int
    stop: int
    state: int

    def seconds(self, sample_rate: int) -> float:
        return (self.stop - self.start) / sample_rate


@attrs.frozen
class EnergyFigures:
    """Each timed inference's energy (µJ), their median and spread, the mean power inside the
    windows and the idle floor between them (mW)."""

    per_inference_uj: tuple[float, ...]
    window_seconds: tuple[float, ...]
    idle_floor_mw: float | None

    @property
    def median_uj(self) -> float:
        return statistics.median(self.per_inference_uj)

    @property
    def spread_uj(self) -> float:
        return max(self.per_inference_uj) - min(self.per_inference_uj)

    @property
    def mean_power_mw(self) -> float:
        return sum(self.per_inference_uj) / sum(self.window_seconds) / MILLI


@attrs.frozen
class LayerEnergy:
    """One layer's energy in each instrumented inference (µJ) and their median."""

    index: int
    samples_uj: tuple[float, ...]

    @property
    def median_uj(self) -> float:
        return statistics.median(self.samples_uj)


def runs(state: np.ndarray, start: int = 0, stop: int | None = None) -> list[Window]:
    """The maximal runs of one state value in ``state[start:stop]``."""
    part = state[start:stop]
    if len(part) == 0:
        return []
    edges = np.flatnonzero(np.diff(part)) + 1
    bounds = [0, *edges.tolist(), len(part)]
    return [Window(start + a, start + b, int(part[a])) for a, b in itertools.pairwise(bounds)]


def active_windows(trace: PowerTrace) -> list[Window]:
    """Each stretch of non-zero state (an inference); PowerError when the trace begins or ends
    inside one (the recording missed part of it)."""
    active = (trace.state != 0).astype(np.uint8)
    found = [w for w in runs(active) if w.state]
    if found and (found[0].start == 0 or found[-1].stop == len(trace)):
        edge = "begins" if found[0].start == 0 else "ends"
        raise PowerError(f"the power trace {edge} inside a window: the recording missed part "
                         "of an inference", "report it; the recording must span the whole run")
    return [Window(w.start, w.stop, 1) for w in found]


def energy_uj(trace: PowerTrace, window: Window) -> float:
    """The energy of ``window`` in µJ."""
    part = slice(window.start, window.stop)
    joules = float(np.dot(trace.current[part], trace.voltage[part])) / trace.sample_rate
    return joules * MICRO


@attrs.frozen
class PassEnergy:
    """What the firmware's power pass marked: its whole inferences' figures and each layer's
    energy in its instrumented inferences."""

    inference: EnergyFigures
    layers: tuple[LayerEnergy, ...]


def inference_energy(trace: PowerTrace, iterations: int) -> EnergyFigures:
    """The energy of each of ``iterations`` timed inferences; PowerError when the trace holds
    another number of windows (the inputs are not wired to the board's power GPIOs, or the
    run did not finish)."""
    return _figures(trace, _expect(active_windows(trace), iterations, "timed inferences"))


def layer_energy(trace: PowerTrace, layers: int, iterations: int) -> tuple[LayerEnergy, ...]:
    """Each layer's energy over the per-layer pass's ``iterations`` inferences."""
    windows = _expect(active_windows(trace), iterations, "instrumented inferences")
    return _layers(trace, windows, layers)


def pass_energy(trace: PowerTrace, iterations: int, layers: int) -> PassEnergy:
    """The power pass's trace: ``iterations`` whole inferences, then as many instrumented
    ones marking ``layers`` layers each (firmware_templates/harness/hpx_power.h)."""
    windows = _expect(active_windows(trace), 2 * iterations,
                      "inferences in the power pass (whole, then layer by layer)")
    return PassEnergy(_figures(trace, windows[:iterations]),
                      _layers(trace, windows[iterations:], layers))


def closed_windows(state: np.ndarray) -> int:
    """How many windows have opened and closed again in ``state`` so far (a recording still
    going on: the last may be open)."""
    active = (state != 0).astype(np.int8)
    rises = int(np.count_nonzero(np.diff(active) == 1)) + int(active[:1].sum())
    falls = int(np.count_nonzero(np.diff(active) == -1))
    return min(rises, falls)


def _figures(trace: PowerTrace, windows: list[Window]) -> EnergyFigures:
    return EnergyFigures(tuple(energy_uj(trace, w) for w in windows),
                         tuple(w.seconds(trace.sample_rate) for w in windows),
                         _idle_floor_mw(trace, windows))


def _layers(trace: PowerTrace, windows: list[Window], layers: int) -> tuple[LayerEnergy, ...]:
    per_layer: list[list[float]] = [[] for _ in range(layers)]
    for window in windows:
        parts = runs(trace.state, window.start, window.stop)
        if len(parts) != layers or [p.state for p in parts] != _layer_states(layers):
            raise PowerError(f"an instrumented inference shows {len(parts)} layer windows, "
                             f"the model has {layers}",
                             "check that the second input is wired to the board's second power "
                             "GPIO (docs/apollo-boards.md)")
        for index, part in enumerate(parts):
            per_layer[index].append(energy_uj(trace, part))
    return tuple(LayerEnergy(i, tuple(samples)) for i, samples in enumerate(per_layer))


def _layer_states(layers: int) -> list[int]:
    return [3 if index % 2 == 0 else 2 for index in range(layers)]


def _expect(windows: list[Window], count: int, what: str) -> list[Window]:
    if len(windows) != count:
        raise PowerError(f"the power trace holds {len(windows)} windows, the run had "
                         f"{count} {what}",
                         "check that the instrument's inputs are wired to the board's power "
                         "GPIOs (docs/apollo-boards.md) and that the run completed")
    return windows


def _idle_floor_mw(trace: PowerTrace, windows: list[Window]) -> float | None:
    """Mean power (mW) of the idle samples between the first window and the last."""
    gaps = [slice(a.stop, b.start) for a, b in itertools.pairwise(windows)]
    count = sum(g.stop - g.start for g in gaps)
    if count == 0:
        return None
    watts = sum(float(np.dot(trace.current[g], trace.voltage[g])) for g in gaps) / count
    return watts * MILLI
