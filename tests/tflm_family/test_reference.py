"""The host reference (tflite-micro Python interpreter) and the output comparison."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hpx_tflm_family import InputSpec, host_outputs, input_bytes, reference_outputs

from hpx_core.models import load_model
from hpx_core.results.outputs import check_outputs

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def test_host_reference_is_deterministic_and_input_dependent() -> None:
    model = load_model(KWS)
    data = KWS.read_bytes()
    zeros = host_outputs(data, input_bytes(InputSpec.parse("zeros"), model), model)
    again = host_outputs(data, input_bytes(InputSpec.parse("zeros"), model), model)
    rand = host_outputs(data, input_bytes(InputSpec.parse("random"), model), model)
    assert zeros == again and len(zeros[0]) == 12
    assert zeros != rand


def test_comparison_reports_exact_or_max_abs_diff() -> None:
    model = load_model(KWS)
    host = host_outputs(KWS.read_bytes(), input_bytes(InputSpec.parse("zeros"), model), model)
    references = reference_outputs(host, model)
    assert check_outputs({0: host[0]}, references, None).exact  # type: ignore[union-attr]
    moved = np.frombuffer(host[0], np.int8).copy()
    moved[3] = np.int8(int(moved[3]) + 5) if moved[3] < 100 else np.int8(int(moved[3]) - 5)
    verdict = check_outputs({0: moved.tobytes()}, references, None)
    assert verdict is not None and not verdict.passed
    assert verdict.tensors[0].max_abs_diff == 5.0 and verdict.tensors[0].mismatched == 1
