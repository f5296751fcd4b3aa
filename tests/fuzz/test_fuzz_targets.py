"""Every fuzz target, quickly: the committed regression inputs, then a sample of mutations.

The coverage-guided session (``nox -s fuzz``) runs each target a million times; this keeps a
fast sample in the default session. A target may only succeed or raise HpxError, and no input
may run longer than the hang guard. ``HPX_FUZZ_SAMPLE`` sets the sample size per target.
"""

from __future__ import annotations

import os
import random
from collections import Counter

import pytest
from fuzz_targets import TARGETS, hang_guard, mutate, regressions

from hpx_core.errors import HpxError

SAMPLE = int(os.environ.get("HPX_FUZZ_SAMPLE", "3000"))
HANG_SECONDS = 10.0


def _outcome(name: str, data: bytes) -> str:
    with hang_guard(HANG_SECONDS):
        try:
            TARGETS[name].run(data)
        except HpxError as error:
            assert error.message and "\n" not in error.message, error.message
            return type(error).__name__
    return "accepted"


@pytest.mark.parametrize("name", list(TARGETS))
def test_regression_inputs_end_in_hpx_errors(name: str) -> None:
    outcomes = Counter(_outcome(name, path.read_bytes()) for path in regressions(name))
    print(f"\n{name}: {sum(outcomes.values())} regression inputs ({dict(outcomes)})")


@pytest.mark.parametrize("name", list(TARGETS))
def test_a_sample_of_mutations_ends_in_hpx_errors(name: str) -> None:
    seeds = TARGETS[name].seeds()
    assert seeds, f"{name} has no seeds"
    rng = random.Random(name)
    outcomes = Counter(_outcome(name, mutate(rng.choice(seeds), rng)) for _ in range(SAMPLE))
    assert outcomes["accepted"] < SAMPLE  # the mutations do reach the error paths
    print(f"\n{name}: {SAMPLE} mutated inputs ({dict(outcomes)})")


def test_the_seeds_are_accepted() -> None:
    for name, target in TARGETS.items():
        for seed in target.seeds():
            assert _outcome(name, seed) == "accepted", name
