"""Workloads that measure a board rather than a model: the calibration workload (assembly
loops whose instruction counts follow from their code), for an engine that runs it to test
the pipeline around it, and the memory probe (what a cache miss costs in each region of a
silicon board), for a pass that prices memory."""

from __future__ import annotations

from hpx_core.selftest.layers import CalibrationLayer, selftest_contribution
from hpx_core.selftest.memory_probe import (
    EVENTS,
    LINE_BYTES,
    WALK_BYTES,
    Walk,
    baseline_region,
    probe_walks,
)
from hpx_core.selftest.memory_run import MemoryProbeRun, WalkResult, run_memory_probe

__all__ = [
    "EVENTS",
    "LINE_BYTES",
    "WALK_BYTES",
    "CalibrationLayer",
    "MemoryProbeRun",
    "Walk",
    "WalkResult",
    "baseline_region",
    "probe_walks",
    "run_memory_probe",
    "selftest_contribution",
]
