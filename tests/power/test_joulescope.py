"""The Joulescope through its driver's API (a fake with that API, tests/support/
fake_joulescope.py): the streamed chunks assemble into the trace the instrument saw, a lost
instrument ends the recording with one error in bounded time, the instrument is chosen by its
serial number, and without the driver the refusal names the extra."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from fake_joulescope import DEVICE, FakeDriver, piecewise

from hpx_core.errors import PowerError
from hpx_core.power.joulescope import (
    INSTALL_HINT,
    Wiring,
    choose,
    instruments,
    load_driver,
    record_while,
)
from hpx_core.power.windows import inference_energy

RATE = 1_000_000
PIECES = [(1_000, 0.0005, 0), *[(7_001, 0.005, 3), (2_003, 0.0005, 0)] * 4]


@pytest.mark.parametrize("chunk", [4_000, 1_001])  # 1,001: GPI bytes padded at each chunk end
def test_the_recording_is_the_trace_the_instrument_saw(chunk: int) -> None:
    signals = piecewise(RATE, PIECES)
    driver = FakeDriver(signals, chunk=chunk)
    trace = record_while(driver, DEVICE, driver.done.is_set)
    assert trace.sample_rate == RATE and len(trace) == len(signals.current)
    assert trace.first == driver.first
    assert np.array_equal(trace.current, signals.current.astype(np.float64))
    assert np.array_equal(trace.state, signals.gpio0 | (signals.gpio1 << 1))
    assert (DEVICE, "defaults") in driver.opened and driver.closed == [DEVICE]
    assert (f"{DEVICE}/h/fs", RATE) in driver.published
    switched_off = {t for t, v in driver.published if t.endswith("/ctrl") and v == 0}
    assert f"{DEVICE}/s/gpi/1/ctrl" in switched_off and f"{DEVICE}/s/i/ctrl" in switched_off
    energy = inference_energy(trace, 4)
    assert energy.per_inference_uj == pytest.approx(
        [float(np.float32(0.005)) * float(np.float32(1.8)) * 7_001] * 4, rel=1e-6)


def test_inputs_wired_elsewhere_are_read_there() -> None:
    driver = FakeDriver(piecewise(RATE, PIECES), wired=(2, 3))
    trace = record_while(driver, DEVICE, driver.done.is_set, wiring=Wiring(2, 3))
    assert len(inference_energy(trace, 4).per_inference_uj) == 4


def test_a_lost_instrument_ends_the_recording_with_one_error() -> None:
    driver = FakeDriver(piecewise(RATE, PIECES), stop_after=20_000)
    with pytest.raises(PowerError) as lost:
        record_while(driver, DEVICE, lambda: False, stall=0.2)
    assert lost.value.message.startswith(f"the Joulescope {DEVICE} stopped streaming")
    assert "the run's counts were kept" in lost.value.hint
    assert driver.closed == [DEVICE]  # let go of, as after a complete recording


def test_the_instrument_is_chosen_by_serial_or_alone() -> None:
    paths = ["u/js220/002557", "u/js110/000123"]
    assert choose(paths, "000123") == "u/js110/000123"
    with pytest.raises(PowerError, match="no Joulescope with serial number 9 is attached"):
        choose(paths, "9")
    with pytest.raises(PowerError, match="2 Joulescopes are attached"):
        choose(paths, None)
    with pytest.raises(PowerError) as none:
        choose([], None)
    assert "connect the Joulescope by USB" in none.value.hint
    assert instruments(FakeDriver(piecewise(RATE, PIECES), devices=paths)) == paths


def test_without_the_driver_the_refusal_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyjoulescope_driver", None)
    with pytest.raises(PowerError) as refused:
        load_driver()
    assert "pyjoulescope_driver" in refused.value.message and refused.value.hint == INSTALL_HINT


def test_an_instrument_that_never_streams_is_refused_in_bounded_time() -> None:
    driver = FakeDriver(piecewise(RATE, PIECES), expected=5)  # never all on: never streams
    with pytest.raises(PowerError) as silent:
        record_while(driver, DEVICE, lambda: False, stall=0.2)
    assert silent.value.message == (f"the Joulescope {DEVICE} sent no current, voltage, gpi0, "
                                    "gpi1 samples within 0.2 s")
