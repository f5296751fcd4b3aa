"""Fuzz the model readers: damaged and random inputs may only raise hpx's ModelError.

Every example either parses or raises :class:`~hpx_core.errors.ModelError`; any other
exception, or an example running longer than the hang guard, fails the test. The default run
is small; ``nox -s fuzz`` sets ``HPX_FUZZ_EXAMPLES=10000`` per reader. Each test prints how many
inputs it fed the reader and how they ended.
"""

from __future__ import annotations

import os
import struct
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from fuzz_targets import Hang, hang_guard
from hpx_executorch.pte_reader import read_pte
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hpx_core.errors import ModelError
from hpx_core.models.tflite_reader import read_tflite
from hpx_core.reading import read_model_bytes

REPO = Path(__file__).parents[2]
EXAMPLES = int(os.environ.get("HPX_FUZZ_EXAMPLES", "200"))
HANG_SECONDS = 10.0

TFLITE_SEEDS = [REPO / "examples" / "models" / "mlperf_tiny" / "kws_ref_model.tflite"]
PTE_SEEDS = sorted((REPO / "tests" / "fixtures" / "pte").glob("*.pte"))
INTERESTING_WORDS = [0, 1, 2, 4, 8, 0x7F, 0x80, 0xFF, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0x80000000,
                     0xFFFFFFFF, 0xFFFFFFFC, 0x10000]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """A real model with a few targeted corruptions."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        # in-place changes keep the other offsets valid and reach deeper into the reader
        kind = draw(st.sampled_from(["byte"] * 3 + ["word"] * 3 + ["truncate", "insert", "delete"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "byte" and data:
            data[pos] = draw(st.integers(0, 255))
        elif kind == "word" and len(data) >= 4:
            pos = min(pos & ~3, len(data) - 4)
            word = draw(st.sampled_from(INTERESTING_WORDS) | st.integers(0, 0xFFFFFFFF))
            struct.pack_into("<I", data, pos, word)
        elif kind == "truncate":
            del data[pos:]
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        else:
            del data[pos : pos + draw(st.integers(1, 64))]
    return bytes(data)


def random_bytes(identifier: bytes) -> st.SearchStrategy[bytes]:
    """Random files: with a plausible root offset and identifier, or entirely random."""
    framed = st.builds(
        lambda root, body: struct.pack("<I", root) + identifier + body,
        st.integers(0, 512) | st.integers(0, 0xFFFFFFFF),
        st.binary(max_size=2048),
    )
    return framed | st.binary(max_size=512)


def fuzz(
    reader: Callable[[bytes, Path, str], object], inputs: st.SearchStrategy[bytes]
) -> Counter[str]:
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(inputs)
    def run(data: bytes) -> None:
        with hang_guard(HANG_SECONDS):
            try:
                reader(data, Path("fuzzed"), "0" * 64)
            except ModelError as error:
                assert error.hint, error.message
                outcomes["ModelError"] += 1
            else:
                outcomes["parsed"] += 1

    run()
    return outcomes


def _report(name: str, outcomes: Counter[str]) -> None:
    total = sum(outcomes.values())
    detail = ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))
    print(f"\nfuzz {name}: {total} inputs ({detail}), no other exception, no hang")
    assert total >= EXAMPLES


def test_fuzz_tflite_reader() -> None:
    seeds = [p.read_bytes() for p in TFLITE_SEEDS]
    inputs = mutated(seeds) | random_bytes(b"TFL3")
    _report("tflite_reader", fuzz(read_tflite, inputs))


def test_fuzz_pte_reader() -> None:
    assert PTE_SEEDS, "the exported PTE fixtures are missing"
    seeds = [p.read_bytes() for p in PTE_SEEDS]
    inputs = mutated(seeds) | random_bytes(b"ET12")
    _report("pte_reader", fuzz(read_pte, inputs))


def test_fuzz_format_dispatch() -> None:
    """Any bytes at all, through every installed plugin's reader: a ModelError or a result."""
    seeds = [p.read_bytes() for p in TFLITE_SEEDS + PTE_SEEDS]
    _report(
        "read_model_bytes",
        fuzz(lambda d, p, _s: read_model_bytes(d, p), mutated(seeds) | st.binary(max_size=256)),
    )


def test_hang_guard_fires() -> None:
    with pytest.raises(Hang), hang_guard(0.05):
        while True:
            pass
