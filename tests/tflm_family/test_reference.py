"""The host reference (tflite-micro Python interpreter) and the output comparison."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hpx_tflm_family import (
    InputSpec,
    check_model,
    host_outputs,
    input_bytes,
    model_glue,
    plan_arena,
    reference_outputs,
)
from hpx_tflm_family.reference import interpret
from tflite_edit import with_custom_op, with_output_quantization

from hpx_core.boards import get_board
from hpx_core.errors import ModelError
from hpx_core.reading import load_model
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


def test_a_model_the_host_interpreter_refuses_is_one_hpx_error_and_leaves_no_cache(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal the model analysis does not know (a uint8 Softmax output after an int8 input)
    comes from the real interpreter as one ModelError naming the operator, before the random
    inputs or any output are kept."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("HPX_CACHE_DIR", str(cache))
    path = tmp_path / "softmax_uint8.tflite"
    path.write_bytes(with_output_quantization(KWS, 12, 1 / 256, 0, tensor_type=3))
    model = load_model(path)
    assert check_model(model) is None
    arena = plan_arena(40_000, get_board("qemu-m55"))
    with pytest.raises(ModelError) as refused:
        model_glue(model, resolver_ops="auto", input="random", input_seed=7,
                   checkout=tmp_path, arena=arena)
    assert "softmax_uint8.tflite" in refused.value.message
    assert "operator 12 (SOFTMAX) failed to prepare" in refused.value.message
    assert "\n" not in refused.value.message + refused.value.hint
    assert not list(cache.rglob("*.json"))


def test_an_operator_without_a_kernel_names_the_model_and_tflms_words(tmp_path: Path) -> None:
    path = tmp_path / "custom.tflite"
    path.write_bytes(with_custom_op(KWS, 3))
    model = load_model(path)
    with pytest.raises(ModelError) as refused:
        interpret(path.read_bytes(), input_bytes(InputSpec.parse("zeros"), model), model)
    assert refused.value.message.startswith("custom.tflite: the host reference")
    assert "op code CUSTOM" in refused.value.message
