"""The read-back judges the clock mode against the run's: LP after reset, HP when the
firmware switched with the HAL (PWRCTRL->MCUPERFREQ.MCUPERFSTATUS 1 and 2)."""

from __future__ import annotations

import pytest

from hpx_core.probe.hwstate import AMBIQ_PWRCTRL, fields_for, read_state


class _Part:
    """Reads the PWRCTRL word ``perf`` puts in MCUPERFSTATUS (bits 4:3); other registers 0."""

    def __init__(self, perf: int) -> None:
        self.perf = perf

    def read32(self, address: int) -> int:
        return self.perf << 3 if address == AMBIQ_PWRCTRL else 0


@pytest.mark.parametrize(("clock", "want"), [("lp", 1), ("hp", 2)])
def test_the_mode_wanted_is_the_runs(clock: str, want: int) -> None:
    field = next(f for f in fields_for("apollo510", clock) if f.name == "mcu_perf_mode")
    assert field.want == want
    state = read_state(_Part(want), "apollo510", (OSError,), clock=clock)
    assert state.fields["mcu_perf_mode"] == want
    assert not [i for i in state.issues if i.startswith("mcu_perf_mode")]


def test_an_hp_run_left_in_lp_is_an_issue() -> None:
    state = read_state(_Part(1), "apollo4p", (OSError,), clock="hp")
    issue = next(i for i in state.issues if i.startswith("mcu_perf_mode"))
    assert "reads 1" in issue and "sets 2" in issue and "mcu_mode_select" in issue
