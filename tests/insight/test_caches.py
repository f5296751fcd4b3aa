"""The silicon board's caches simulated in the instruction-profile pass (the selftest firmware
on the emulated boards, with real QEMU runs): counting misses moves no count, a smaller cache
misses at least as often, and a geometry the plugin cannot simulate is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from hpx_insight.caches import CacheGeometry, CacheSetup
from hpx_insight.document import profile_document, shape_problem
from hpx_insight.profile import InstructionProfile, instruction_profile

from hpx_core.boards import get_board
from hpx_core.errors import HpxError
from hpx_core.selftest.run import SelftestReport

pytestmark = pytest.mark.emulated
BIG = CacheGeometry(65536, 2, 32, "test")
TINY = CacheGeometry(64, 1, 32, "test")  # two lines: every other block misses


def _cached(run: SelftestReport, cache: Path, icache: CacheGeometry) -> InstructionProfile:
    setup = CacheSetup("apollo510_evb", icache, CacheGeometry(65536, 4, 32, "test"))
    return instruction_profile(run.build.elf, get_board(run.board), cache=cache, caches=setup)


def test_misses_are_counted_without_moving_a_count(selftest_run: SelftestReport,
                                                   selftest_profile: InstructionProfile,
                                                   insight_cache: Path) -> None:
    big = _cached(selftest_run, insight_cache, BIG)
    tiny = _cached(selftest_run, insight_cache, TINY)
    plain = {layer.index: layer.work.per_pass for layer in selftest_profile.layers}
    for found in (big, tiny):
        assert found.counter_agrees()
        assert {layer.index: layer.work.per_pass for layer in found.layers} == plain
    # the selftest's code fits a 64 KiB cache: after the first touches it never misses again
    assert 0 < big.whole.icache_misses() < 2048
    for ours, theirs in zip(big.layers, tiny.layers, strict=True):
        assert theirs.work.icache_misses() >= ours.work.icache_misses()
    assert tiny.whole.icache_misses() > 10 * big.whole.icache_misses()
    document = profile_document(big)
    assert shape_problem(document) is None
    assert document["caches"]["icache"]["size"] == 65536
    assert document["whole"]["cache"]["icache_misses"] == big.whole.icache_misses()


def test_a_geometry_the_plugin_cannot_simulate_is_refused(selftest_run: SelftestReport,
                                                          insight_cache: Path) -> None:
    odd = CacheSetup("apollo510_evb", CacheGeometry(3000, 3, 24, "test"), None)
    with pytest.raises(HpxError):
        instruction_profile(selftest_run.build.elf, get_board(selftest_run.board),
                            cache=insight_cache, caches=odd)
