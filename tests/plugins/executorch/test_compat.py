"""Refusals made from the program alone, before anything is fetched or built."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hpx_executorch.compat import (
    check_ns_ops,
    check_release,
    check_runnable,
    exporter_version,
    release_series,
)
from hpx_executorch.program import program_of
from hpx_executorch.schemas import call_arity

from hpx_core.errors import ConfigError, ModelError
from hpx_core.reading import load_model

from .conftest import TIER1


def _with_exporter(tmp_path: Path, name: str, version: str) -> Path:
    """A copy of a committed program whose sidecar names another exporter release."""
    pte = tmp_path / name
    shutil.copy(TIER1 / name, pte)
    doc = json.loads((TIER1 / f"{name}.json").read_text(encoding="utf-8"))
    doc["exporter"]["executorch"] = version
    Path(f"{pte}.json").write_text(json.dumps(doc), encoding="utf-8")
    return pte


def test_sidecar_release_mismatch_names_both_versions(tmp_path: Path) -> None:
    model = load_model(_with_exporter(tmp_path, "tier1_arm.pte", "1.5.1"))
    with pytest.raises(ModelError) as caught:
        check_release(model, tmp_path, "1.3.0")  # the sidecar decides; no schemas read
    assert "ExecuTorch 1.5.1" in caught.value.message
    assert "ExecuTorch 1.3.0" in caught.value.message
    assert "executorch==1.3.*" in caught.value.hint


def test_same_release_series_is_accepted(tmp_path: Path) -> None:
    model = load_model(TIER1 / "tier1_arm.pte")
    assert exporter_version(model) == "1.3.1"
    check_release(model, tmp_path, "1.3.0")


def test_release_series() -> None:
    assert release_series("1.3.1") == release_series("1.3.0") == "1.3"
    assert release_series("1.5.1+cpu") == "1.5"


def test_call_arity_counts_arguments_and_returns() -> None:
    # verbatim from the pinned runtime's backends/cortex_m/ops/operators.yaml
    conv = ("cortex_m::quantized_conv2d.out(Tensor input, Tensor weight, Tensor? bias, "
            "int[] stride, int[] padding, int[] dilation, int input_offset, int output_offset, "
            "Tensor requantize_multipliers, Tensor requantize_shifts, int activation_min, "
            "int activation_max, *, Tensor(a!) out) -> Tensor(a!)")
    assert call_arity(conv) == ("cortex_m::quantized_conv2d.out", 14)
    leaky = ("leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) "
             "-> Tensor(a!)")
    assert call_arity(leaky) == ("aten::leaky_relu.out", 4)
    # what the committed 1.3.1 export carries for those calls
    model = load_model(TIER1 / "tier1_arm.pte")
    program = program_of(model)
    assert program is not None
    plan = program.plans[0]
    counts = {plan.operators[i.target].qualified_name: len(i.args)
              for i in plan.chains[0] if i.target is not None}
    assert counts["cortex_m::quantized_conv2d.out"] == 14
    assert counts["aten::leaky_relu.out"] == 4


def test_ns_program_on_arm_is_an_operator_missing_error() -> None:
    model = load_model(TIER1 / "tier1_ns.pte")
    with pytest.raises(ConfigError) as caught:
        check_ns_ops(model, "arm", False)
    assert caught.value.message.startswith("operator missing: cortex_m_ns::quantized_hardswish.out")
    assert "enable ns_ops with backend ns" in caught.value.hint
    with pytest.raises(ConfigError):
        check_ns_ops(model, "ns", False)
    check_ns_ops(model, "ns", True)
    check_ns_ops(load_model(TIER1 / "tier1_arm.pte"), "arm", False)


def test_portable_mean_on_channels_last_is_refused() -> None:
    with pytest.raises(ModelError) as caught:
        check_runnable(load_model(TIER1 / "tier1mean_cl_arm.pte"))
    assert "aten::mean.out on channels_last" in caught.value.message
    assert "cortex_m_ns::quantized_mean" in caught.value.hint
    check_runnable(load_model(TIER1 / "tier1mean_arm.pte"))  # contiguous: runs
    check_runnable(load_model(TIER1 / "tier1mean_ns.pte"))  # lowered to the ns kernel
