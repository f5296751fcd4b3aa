"""Profile a model through the one pipeline the CLI uses, for the end-to-end tests.

The whole run, or up to a stage (``until="kernel verification"`` for a build-only run on an
Apollo board), with the config a user would write, given as overrides.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from hpx_core.config.validate import overrides
from hpx_core.firmware import detect_toolchains
from hpx_core.pipeline import ProfileOutcome, profile
from hpx_core.reading import load_model

BUILD_ONLY = "kernel verification"
LLVM = "clang"


def llvm_e2e_marks() -> list[pytest.MarkDecorator]:
    """End-to-end on the emulated boards with the LLVM toolchain: skipped, with the reason,
    where QEMU or clang/lld is missing."""
    found = detect_toolchains()[LLVM]
    return [
        pytest.mark.e2e,
        pytest.mark.emulated,
        pytest.mark.skipif(shutil.which("qemu-system-arm") is None, reason="needs QEMU"),
        pytest.mark.skipif(not found.available, reason=f"{LLVM}: {found.reason}"),
    ]


def profile_run(model: Path, engine: str, board: str, work: Path, *, backend: str | None = None,
                iterations: int = 3, until: str | None = None, toolchain: str | None = None,
                check_layers: str = "off", arena_size: int | None = None,
                memory: bool = True, **engine_config: Any) -> ProfileOutcome:
    """``hpx profile MODEL --engine ENGINE --board BOARD --output-dir WORK/results`` (and
    ``--toolchain``) with ``engine.config`` values from keyword arguments (``--check-layers``
    from ``check_layers``, ``model.arena_size`` from ``arena_size``, ``profiling.memory`` from
    ``memory``)."""
    settings = overrides("test", engine__type=engine, engine__backend=backend,
                         target__board=board, target__toolchain=toolchain,
                         output__dir=str(work / "results"),
                         profiling__iterations=iterations, profiling__warmup=1,
                         profiling__check_layers=check_layers, model__arena_size=arena_size,
                         profiling__memory=memory, engine__config=engine_config)
    return profile(model, None, settings, until=until)


def extra_of(outcome: ProfileOutcome) -> dict[str, Any]:
    """The bundle's ``extra`` section (engine facts: inputs, library, ...)."""
    assert outcome.record is not None, "the run did not reach its results"
    return dict(outcome.record.extra)


def outputs_exact(outcome: ProfileOutcome) -> bool:
    """The device's outputs equal the engine's host reference, byte for byte."""
    assert outcome.record is not None, "the run did not reach its results"
    verdict = outcome.record.outputs
    assert verdict is not None, "the engine handed over no host reference"
    return verdict.exact


def check_exact_profile(outcome: ProfileOutcome, model_path: Path, *, coverage: float,
                        framing: int = 0) -> None:
    """A valid emulated profile of a TFLM-family engine: one layer per operator in order,
    exact counts (no spread, one whole count), the layers covering ``coverage`` of the whole
    inference or leaving at most ``framing`` instructions outside them, outputs equal to the
    host interpreter's, every kernel check passed."""
    model = load_model(model_path)
    m = outcome.measurement
    assert m is not None and m.validity == "valid", m and m.issues
    assert [layer.index for layer in m.layers] == list(range(len(model.operators)))
    assert [layer.op for layer in m.layers] == [op.name for op in model.operators]
    assert all(layer.median > 0 and layer.calls == 1 for layer in m.layers)
    # Emulated counts are exact instructions: every iteration gives the same number.
    assert all(layer.spread == 0 for layer in m.layers), [x.counts for x in m.layers]
    assert len(set(m.whole)) == 1, f"whole-inference counts vary: {m.whole}"
    assert m.layer_sum <= m.whole_median
    remainder = m.whole_median - m.layer_sum
    assert remainder <= max((1 - coverage) * m.whole_median, framing), (m.layer_sum,
                                                                       m.whole_median)
    assert outputs_exact(outcome), outcome.record.outputs if outcome.record else None
    assert outcome.findings and all(f.passed for f in outcome.findings), outcome.findings
