"""The calibration workload (assembly loops whose instruction counts follow from their code),
for an engine that runs it to test the pipeline around it."""

from __future__ import annotations

from hpx_core.selftest.layers import CalibrationLayer, selftest_contribution

__all__ = ["CalibrationLayer", "selftest_contribution"]
