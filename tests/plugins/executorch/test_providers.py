"""The executorch engine's reading of a program's operators: which kernel library each needs."""

from __future__ import annotations

from pathlib import Path

from hpx_executorch.providers import (
    Provider,
    cortex_m_ops,
    needs_ns_ops,
    portable_ops,
    provider,
    provider_counts,
)
from ptebuild import KERNEL_CALL, Call, build_program, sample_spec

from hpx_core.contract import NotesRequest
from hpx_core.hooks import EngineHooks
from hpx_core.plugins import default_registry
from hpx_core.reading import load_model

from .conftest import TIER1 as PROGRAMS

TIER1 = PROGRAMS / "tier1_arm.pte"


def test_namespaces_name_the_kernel_libraries() -> None:
    assert provider("cortex_m::quantize_per_tensor", "out") is Provider.CMSIS_NN
    assert provider("cortex_m_ns::quantized_sub", "out") is Provider.NS
    assert provider("aten::leaky_relu", "out") is Provider.PORTABLE
    assert provider("aten::add", "Tensor") is Provider.OTHER  # no portable out-kernel
    assert provider("delegate:ArmBackend", None) is Provider.DELEGATE


def test_a_program_with_ambiq_kernels_needs_ns_ops(tmp_path: Path) -> None:
    pte = tmp_path / "sample.pte"
    pte.write_bytes(build_program(sample_spec()))
    info = load_model(pte)
    assert portable_ops(info) == ("aten::leaky_relu.out",) and needs_ns_ops(info)
    assert provider_counts(info) == {"cortex_m": 2, "cortex_m_ns": 1, "portable": 1}
    spec = sample_spec()
    spec.calls = [Call(KERNEL_CALL, 0, [0, 6, 1])]
    spec.operators = [("cortex_m::quantize_per_tensor", "out")]
    pte.write_bytes(build_program(spec))
    assert not needs_ns_ops(load_model(pte)) and portable_ops(load_model(pte)) == ()


def test_hpx_analyze_gets_the_engines_notes() -> None:
    notes = EngineHooks(default_registry()).describe_model(NotesRequest(load_model(TIER1)))
    (engine_notes,) = notes.values()
    shown = {n.label: n.value for n in engine_notes}
    assert "aten::leaky_relu.out" in shown["portable ops"]
    assert "needs ns_ops" not in shown and shown["sidecar"].startswith("tier1_arm.pte.json")


def test_the_tier1_programs_cortex_m_operators_are_read_from_its_table() -> None:
    info = load_model(TIER1)
    assert cortex_m_ops(info) == (
        "cortex_m::dequantize_per_tensor.out", "cortex_m::minimum.out",
        "cortex_m::quantize_per_tensor.out", "cortex_m::quantized_conv2d.out",
        "cortex_m::quantized_mul.out")
    assert not set(cortex_m_ops(info)) & set(portable_ops(info))
