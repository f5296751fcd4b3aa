"""The bundle extras of a TFLM-family run: input, arena and outputs against the host."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from hpx_core.models import load_model
from hpx_core.tflm_family import (
    ArenaPlan,
    FamilyFacts,
    InputSpec,
    family_extra,
    host_outputs,
    input_bytes,
)

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


class _Capture:
    """What family_extra reads from a decoded capture: outputs and metrics."""

    def __init__(self, outputs: dict[int, bytes], metrics: dict[str, int]) -> None:
        self._outputs, self._metrics = outputs, metrics

    def outputs(self) -> dict[int, bytes]:
        return self._outputs

    def metrics(self) -> dict[str, int]:
        return self._metrics


def _info() -> tuple[FamilyFacts, bytes]:
    model = load_model(KWS)
    spec = InputSpec.parse("random", 0)
    expected = host_outputs(KWS.read_bytes(), input_bytes(spec, model), model)[0]
    facts = FamilyFacts(spec.describe(), model.resolver_ops, ArenaPlan(2097152, "probe"), (),
                        (expected,), library="tflm_reference-x")
    return facts, expected


def test_matching_outputs_and_arena_suggestion() -> None:
    info, expected = _info()
    extra = family_extra(_Capture({0: expected}, {"arena_used": 22772}), info,  # type: ignore[arg-type]
                         load_model(KWS))
    assert extra["outputs"]["exact"] is True
    assert extra["allocated_arena"] == 22772 and extra["suggested_arena_size"] == 34160
    assert extra["input"] == "random (numpy default_rng seed 0)"


def test_differing_outputs_report_max_abs_diff() -> None:
    info, expected = _info()
    changed = np.frombuffer(expected, np.int8).copy()
    changed[0] = np.int8(int(changed[0]) + 2) if changed[0] < 100 else np.int8(int(changed[0]) - 2)
    extra = family_extra(_Capture({0: changed.tobytes()}, {}), info,  # type: ignore[arg-type]
                         load_model(KWS))
    assert extra["outputs"]["exact"] is False
    assert extra["outputs"]["tensors"][0]["max_abs_diff"] == 2.0
    assert extra["allocated_arena"] is None and extra["suggested_arena_size"] is None
