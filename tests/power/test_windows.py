"""The energy of each window of a known trace, to the µJ: whole inferences, layers, the idle
floor, and the traces that do not match the run."""

from __future__ import annotations

import numpy as np
import pytest
from fake_joulescope import Signals, piecewise

from hpx_core.errors import PowerError
from hpx_core.power.trace import PowerTrace
from hpx_core.power.windows import closed_windows, inference_energy, layer_energy, pass_energy

RATE = 1_000_000
VOLTS = 1.8
# three layers per inference: (samples, amperes); states 3, 2, 3 in the per-layer pass
LAYERS = ((3_000, 0.004), (5_000, 0.006), (2_000, 0.003))
IDLE = (2_500, 0.0005)
ITERATIONS = 5


def _trace(signals: Signals) -> PowerTrace:
    state = (signals.gpio0 | (signals.gpio1 << 1)).astype(np.uint8)
    return PowerTrace(RATE, signals.current.astype(np.float64),
                      signals.voltage.astype(np.float64), state)


def _pieces(per_layer: bool, scale: tuple[float, ...] = (1.0,) * ITERATIONS
            ) -> list[tuple[int, float, int]]:
    pieces = [(IDLE[0], IDLE[1], 0)]
    for factor in scale:
        for index, (samples, amperes) in enumerate(LAYERS):
            state = (3 if index % 2 == 0 else 2) if per_layer else 3
            pieces.append((samples, amperes * factor, state))
        pieces.append((IDLE[0], IDLE[1], 0))
    return pieces


def _uj(samples: int, amperes: float) -> float:
    """The energy of ``samples`` at ``amperes`` and the trace's volts, in µJ (computed in
    float32 as the instrument sends them)."""
    return float(np.float32(amperes)) * float(np.float32(VOLTS)) * samples / RATE * 1e6


def test_each_inference_is_the_integral_of_its_window() -> None:
    scale = (1.0, 1.1, 0.9, 1.0, 1.2)
    figures = inference_energy(_trace(piecewise(RATE, _pieces(False, scale), VOLTS)),
                               ITERATIONS)
    expected = [sum(_uj(n, a * f) for n, a in LAYERS) for f in scale]
    assert figures.per_inference_uj == pytest.approx(expected, rel=1e-6)
    assert figures.median_uj == pytest.approx(sorted(expected)[2], rel=1e-6)
    assert figures.spread_uj == pytest.approx(max(expected) - min(expected), rel=1e-5)
    assert figures.window_seconds == (0.01,) * ITERATIONS
    window_mw = sum(expected) / (0.01 * ITERATIONS) / 1e3
    assert figures.mean_power_mw == pytest.approx(window_mw, rel=1e-6)
    assert figures.idle_floor_mw == pytest.approx(IDLE[1] * VOLTS * 1e3, rel=1e-6)


def test_each_layer_is_the_integral_of_its_part_and_they_add_up() -> None:
    trace = _trace(piecewise(RATE, _pieces(True), VOLTS))
    layers = layer_energy(trace, len(LAYERS), ITERATIONS)
    assert [x.median_uj for x in layers] == pytest.approx([_uj(n, a) for n, a in LAYERS],
                                                          rel=1e-6)
    whole = inference_energy(trace, ITERATIONS).median_uj
    assert sum(x.median_uj for x in layers) == pytest.approx(whole, rel=1e-9)
    assert all(len(x.samples_uj) == ITERATIONS for x in layers)


def test_a_trace_with_another_number_of_windows_is_refused() -> None:
    trace = _trace(piecewise(RATE, _pieces(False), VOLTS))
    with pytest.raises(PowerError) as refused:
        inference_energy(trace, ITERATIONS + 1)
    assert refused.value.message == "the power trace holds 5 windows, the run had 6 timed " \
        "inferences"
    assert "wired to the board's power GPIOs" in refused.value.hint


def test_layer_windows_that_do_not_match_the_model_are_refused() -> None:
    trace = _trace(piecewise(RATE, _pieces(True), VOLTS))
    with pytest.raises(PowerError, match="shows 3 layer windows, the model has 4"):
        layer_energy(trace, 4, ITERATIONS)


def test_a_trace_cut_inside_a_window_is_refused() -> None:
    cut = _pieces(False)[1:]  # starts inside the first inference
    with pytest.raises(PowerError, match="begins inside a window"):
        inference_energy(_trace(piecewise(RATE, cut, VOLTS)), ITERATIONS)


def test_the_power_pass_is_its_whole_inferences_then_its_layers() -> None:
    scale = (1.0, 1.1, 0.9, 1.0, 1.2)
    pieces = _pieces(False, scale) + _pieces(True)[1:]  # one idle stretch between the halves
    energy = pass_energy(_trace(piecewise(RATE, pieces, VOLTS)), ITERATIONS, len(LAYERS))
    whole = sum(_uj(n, a) for n, a in LAYERS)
    assert energy.inference.per_inference_uj == pytest.approx([whole * f for f in scale])
    assert [x.median_uj for x in energy.layers] == pytest.approx([_uj(n, a) for n, a in LAYERS])
    with pytest.raises(PowerError, match="holds 10 windows, the run had 12 inferences"):
        pass_energy(_trace(piecewise(RATE, pieces, VOLTS)), ITERATIONS + 1, len(LAYERS))


def test_closed_windows_counts_only_windows_that_ended() -> None:
    state = np.array([0, 3, 3, 0, 2, 3, 0, 3], np.uint8)
    assert closed_windows(state) == 2  # the last one is still open
    assert closed_windows(np.array([3, 0, 0], np.uint8)) == 1
    assert closed_windows(np.zeros(0, np.uint8)) == 0
