"""The silicon selftest's verdicts, on the measurement of a real recorded selftest stream.

The recorded stream is the qemu-m55 selftest, whose counts are exact instruction counts: a
core doing one instruction a cycle would give the same numbers, so every check must pass;
counts bent the ways broken hardware counters bend them must fail the matching check.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from hpx_core.boards import get_board
from hpx_core.results import Measurement, measure
from hpx_core.selftest.probe import silicon_checks
from hpx_core.wire import parse_capture

BOARD = get_board("qemu-m55")
RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "wire" / "selftest-qemu-m55.bin"


def measurement() -> Measurement:
    return measure(parse_capture(RECORDED.read_bytes()), BOARD)


def verdicts(m: Measurement) -> dict[str, bool]:
    return {c.name: c.passed for c in silicon_checks(BOARD, [m, m])}


def bend(m: Measurement, name: str, factor: float) -> Measurement:
    layers = tuple(
        attrs.evolve(x, counts=tuple(round(c * factor) for c in x.counts)) if x.name == name else x
        for x in m.layers
    )
    return attrs.evolve(m, layers=layers)


def test_exact_counts_pass_every_check() -> None:
    found = verdicts(measurement())
    assert found and all(found.values()), found
    assert "subs/bne loops linear in their length" in found


def test_a_counter_that_loses_counts_breaks_linearity_and_bounds() -> None:
    found = verdicts(bend(measurement(), "long", 0.3))
    assert not found["subs/bne loops linear in their length"]
    assert not found["long: cycles within the core's bounds"]
    assert found["short: cycles within the core's bounds"]


def test_noisy_iterations_are_not_repeatable() -> None:
    m = measurement()
    layers = tuple(
        attrs.evolve(x, counts=(x.counts[0], x.counts[1] * 2, *x.counts[2:]))
        if x.name == "memory"
        else x
        for x in m.layers
    )
    found = verdicts(attrs.evolve(m, layers=layers))
    assert not found["memory: repeatable"]
    assert found["nops: repeatable"]


def test_a_missing_loop_is_reported_first() -> None:
    m = measurement()
    found = silicon_checks(BOARD, [attrs.evolve(m, layers=m.layers[1:])])
    assert [(c.name, c.passed, c.detail) for c in found] == [("every loop measured", False, "tiny")]
