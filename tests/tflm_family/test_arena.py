"""Arena sizing: configured, probed, and the 1.5x suggestion."""

from __future__ import annotations

import pytest
from hpx_tflm_family import arena_summary, plan_arena, suggested_arena
from hpx_tflm_family.arena import data_memory

from hpx_core.boards import get_board
from hpx_core.errors import ConfigError


def test_configured_size_is_aligned_and_kept() -> None:
    plan = plan_arena(30_001, get_board("qemu-m55"))
    assert (plan.size, plan.source) == (30_016, "config")


def test_unset_size_probes_half_the_data_memory_capped() -> None:
    board = get_board("qemu-m4")
    plan = plan_arena(None, board)
    assert plan.source == "probe"
    assert plan.size == min(data_memory(board) // 2, 2 * 1024 * 1024)
    assert plan.size % 16 == 0


def test_too_large_configured_size_is_refused() -> None:
    board = get_board("qemu-m55")
    with pytest.raises(ConfigError, match="exceeds"):
        plan_arena(data_memory(board) + 1, board)


def test_suggestion_is_one_and_a_half_times_used_aligned() -> None:
    assert suggested_arena(22_772) == 34_160  # 34,158 rounded up to 16
    summary = arena_summary(plan_arena(None, get_board("qemu-m55")), 22_772)
    assert summary["allocated_arena"] == 22_772
    assert summary["suggested_arena_size"] == 34_160
    assert arena_summary(plan_arena(40_000, get_board("qemu-m55")), None)[
        "suggested_arena_size"] is None
