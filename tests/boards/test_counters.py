"""Counter plans: event names checked, passes sized to the board's PMU, passes merged."""

from __future__ import annotations

import pytest

from hpx_core.boards import get_board
from hpx_core.boards.counters import CounterPlan, merge_passes, plan_counters
from hpx_core.errors import ConfigError, ResultsError

# A few events with their numbers in Arm's PMU architecture (the e2e test reads the real
# table from the pinned SDK's CMSIS header).
KNOWN = {
    "CPU_CYCLES": 0x11,
    "INST_RETIRED": 0x08,
    "L1D_CACHE_REFILL": 0x03,
    "L1D_CACHE": 0x04,
    "MVE_INST_RETIRED": 0x200,
    "STALL": 0x3C,
    "LD_RETIRED": 0x06,
}


def test_more_events_than_counters_take_several_passes() -> None:
    board = get_board("apollo510_evb")
    assert board.silicon is not None and board.silicon.pmu_counters == 4
    names = ["cpu_cycles", "INST_RETIRED", "MVE_INST_RETIRED", "L1D_CACHE_REFILL", "L1D_CACHE"]
    names += ["STALL", "LD_RETIRED", "INST_RETIRED"]
    plan = plan_counters(board, names, KNOWN)
    assert plan.passes == (
        ("INST_RETIRED", "MVE_INST_RETIRED", "L1D_CACHE_REFILL", "L1D_CACHE"),
        ("STALL", "LD_RETIRED"),
    )
    assert plan.note is None


def test_cycles_alone_need_no_event_counter() -> None:
    assert plan_counters(get_board("apollo330mP_evb"), ["CPU_CYCLES"], KNOWN) == CounterPlan([()])


def test_dwt_boards_say_only_cycles_are_captured() -> None:
    plan = plan_counters(get_board("apollo4p_evb"), ["INST_RETIRED"], KNOWN)
    assert plan.passes == ((),)
    assert plan.note == (
        "apollo4p_evb has the DWT cycle counter only: only cycles are captured (INST_RETIRED not)"
    )


def test_unknown_event_suggests_the_arm_name() -> None:
    with pytest.raises(ConfigError, match="unknown PMU event 'INST_RETIRD'; did you mean"):
        plan_counters(get_board("apollo510_evb"), ["INST_RETIRD"], KNOWN)


def test_emulated_boards_have_no_hardware_counters() -> None:
    with pytest.raises(ConfigError, match="qemu-m55 counts instructions under emulation"):
        plan_counters(get_board("qemu-m55"), ["INST_RETIRED"], KNOWN)


def test_passes_merge_by_layer_identity() -> None:
    one = {0: ("conv", {"CPU_CYCLES": 100, "INST_RETIRED": 60}), 1: ("fc", {"CPU_CYCLES": 50})}
    two = {0: ("conv", {"CPU_CYCLES": 101, "STALL": 7}), 1: ("fc", {"CPU_CYCLES": 49, "STALL": 2})}
    merged = merge_passes([one, two])
    assert merged == {
        0: {"CPU_CYCLES": 100, "INST_RETIRED": 60, "STALL": 7},
        1: {"CPU_CYCLES": 50, "STALL": 2},
    }
    with pytest.raises(ResultsError, match="layer 1 is 'softmax' in pass 2 but 'fc' before"):
        merge_passes([one, {0: ("conv", {}), 1: ("softmax", {})}])
    with pytest.raises(ResultsError, match=r"pass 2 measured layers \[0\], pass 1 \[0, 1\]"):
        merge_passes([one, {0: ("conv", {})}])
