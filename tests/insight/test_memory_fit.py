"""The fit of the memory costs no document gives: exact on rows that follow known costs,
never negative, and its leave-one-out error predicts each program from the others."""

from __future__ import annotations

import pytest
from hpx_insight.cycles.memory import FITTED, RANKED, SYSTEMS
from hpx_insight.cycles.memory_fit import FitRow, fit_memory

KNOWN = {"sram_read_fill": 9.0, "sram_write_miss": 4.0, "pmu_scope": 250.0}


def _rows(costs: dict[str, float]) -> list[FitRow]:
    shapes = [("quantize", 50_000.0, {"sram_read_fill": 2061, "sram_write_miss": 512,
                                      "pmu_scope": 1}),
              ("dequantize", 39_000.0, {"sram_read_fill": 522, "sram_write_miss": 2049,
                                        "pmu_scope": 1}),
              ("small", 450.0, {"pmu_scope": 1}),
              ("sub", 460_000.0, {"sram_read_fill": 4108, "sram_write_miss": 2049,
                                  "pmu_scope": 1}),
              ("whole", 3_300_000.0, {"sram_read_fill": 10_986, "sram_write_miss": 11_515})]
    return [FitRow(f"{program} {name}", program, core + sum(costs.get(k, 0) * n
                                                            for k, n in events.items()),
                   core * (1.0 if program == "a" else 1.01), events)
            for program in ("a", "b", "c") for name, core, events in shapes]


def test_known_costs_are_recovered() -> None:
    rows = [FitRow(r.name, r.group, r.measured, r.measured - sum(
        KNOWN[k] * n for k, n in r.events.items()), r.events) for r in _rows(KNOWN)]
    fit = fit_memory(rows)
    assert fit.costs == pytest.approx(KNOWN, rel=1e-6)
    assert max(abs(e) for e in fit.errors.values()) < 1e-9
    assert max(abs(e) for e in fit.held_out.values()) < 1e-9


def test_a_cost_the_rows_would_make_negative_is_zero() -> None:
    rows = _rows({"sram_read_fill": -5.0, "sram_write_miss": 4.0, "pmu_scope": 250.0})
    fit = fit_memory(rows)
    assert fit.costs["sram_read_fill"] == 0.0
    assert all(v >= 0 for v in fit.costs.values())
    assert set(fit.held_out) == {r.name for r in rows}


def _with_mram(costs: dict[str, float]) -> list[FitRow]:
    """The rows of :func:`_rows` and a program whose weights sit in MRAM (its fills)."""
    core = 7_000_000.0
    fills = {"mram_read_fill": 7_450.0, "sram_read_fill": 900.0}
    return [*_rows(costs), FitRow("vww heliaRT", "vww", core + sum(
        costs.get(k, 0) * n for k, n in fills.items()), core, fills)]


def test_a_ranked_cost_the_rows_determine_is_recovered_above_its_bound() -> None:
    known = {**KNOWN, "mram_read_fill": 30.0}
    fit = fit_memory([FitRow(r.name, r.group, r.measured, r.measured - sum(
        known[k] * n for k, n in r.events.items()), r.events) for r in _with_mram(known)],
        at_least=RANKED)
    assert fit.costs == pytest.approx(known, rel=1e-6)
    assert max(abs(e) for e in fit.errors.values()) < 1e-9


def test_a_ranked_cost_the_rows_would_put_below_its_bound_sits_at_the_bound() -> None:
    """Unranked, MRAM's fill would be fitted 0 (its program runs faster than the rest say);
    ranked, it costs what a shared SRAM fill does, and never less."""
    rows = [FitRow(r.name, r.group, r.measured * (0.995 if r.group == "vww" else 1.0),
                   r.measured - sum(KNOWN.get(k, 0) * n for k, n in r.events.items()),
                   r.events) for r in _with_mram(KNOWN)]
    assert fit_memory(rows).costs["mram_read_fill"] == 0.0
    ranked = fit_memory(rows, at_least=RANKED)
    assert ranked.costs["mram_read_fill"] == ranked.costs["sram_read_fill"]
    assert ranked.costs["sram_read_fill"] == pytest.approx(KNOWN["sram_read_fill"], rel=0.05)


def test_the_fitted_mram_fill_keeps_the_documented_ranking() -> None:
    assert FITTED["mram_read_fill"] >= FITTED["sram_read_fill"] > 0
    for board in ("apollo510_evb", "apollo330mP_evb"):
        mram = SYSTEMS[board].region("MCU_MRAM").lines
        assert mram is not None and mram.read_fill == FITTED["mram_read_fill"]


def test_the_apollo5_boards_price_their_cached_regions_with_the_fitted_costs() -> None:
    for board in ("apollo510_evb", "apollo330mP_evb"):
        system = SYSTEMS[board]
        sram = system.region("SHARED_SRAM").lines
        assert sram is not None and sram.read_fill == FITTED["sram_read_fill"]
        assert system.region("MCU_TCM").lines is None and not system.region("MCU_TCM").cached
        assert system.scope == FITTED["pmu_scope"]
        assert system.icache is not None and system.icache.line == 32
