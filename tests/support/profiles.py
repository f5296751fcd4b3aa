"""Profile a model through the one pipeline the CLI uses, for the end-to-end tests.

The whole run, or up to a stage (``until="kernel verification"`` for a build-only run on an
Apollo board), with the config a user would write, given as overrides.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from hpx_core.build import detect_toolchains
from hpx_core.config.validate import overrides
from hpx_core.pipeline import ProfileOutcome, profile

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
                **engine_config: Any) -> ProfileOutcome:
    """``hpx profile MODEL --engine ENGINE --board BOARD --output-dir WORK/results`` (and
    ``--toolchain``) with ``engine.config`` values from keyword arguments (``--check-layers``
    from ``check_layers``, ``model.arena_size`` from ``arena_size``)."""
    settings = overrides("test", engine__type=engine, engine__backend=backend,
                         target__board=board, target__toolchain=toolchain,
                         output__dir=str(work / "results"),
                         profiling__iterations=iterations, profiling__warmup=1,
                         profiling__check_layers=check_layers, model__arena_size=arena_size,
                         engine__config=engine_config)
    return profile(model, None, settings, until=until)


def extra_of(outcome: ProfileOutcome) -> dict[str, Any]:
    """The bundle's ``extra`` section (engine facts: inputs, output checks, ...)."""
    assert outcome.record is not None, "the run did not reach its results"
    return dict(outcome.record.extra)
