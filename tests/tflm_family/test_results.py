"""The bundle extras of a TFLM-family run: input, arena, and the host's outputs for the core."""

from __future__ import annotations

from pathlib import Path

from hpx_tflm_family import (
    ArenaPlan,
    FamilyFacts,
    InputSpec,
    family_extra,
    host_outputs,
    input_bytes,
    reference_outputs,
)

from hpx_core.reading import load_model
from hpx_core.results.outputs import check_outputs

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


class _Capture:
    """What family_extra reads from a decoded capture: metrics."""

    def __init__(self, metrics: dict[str, int]) -> None:
        self._metrics = metrics

    def metrics(self) -> dict[str, int]:
        return self._metrics


def _info() -> tuple[FamilyFacts, bytes]:
    model = load_model(KWS)
    spec = InputSpec.parse("random", 0)
    expected = host_outputs(KWS.read_bytes(), input_bytes(spec, model), model)[0]
    facts = FamilyFacts(spec.describe(), model.resolver_ops, ArenaPlan(2097152, "probe"), (),
                        (expected,), library="tflm_reference-x")
    return facts, expected


def test_arena_suggestion_and_input() -> None:
    info, _ = _info()
    extra = family_extra(_Capture({"arena_used": 22772}), info)  # type: ignore[arg-type]
    assert extra["allocated_arena"] == 22772 and extra["suggested_arena_size"] == 34160
    assert extra["input"] == "random (numpy default_rng seed 0)"
    assert "outputs" not in extra  # the core compares them
    unmeasured = family_extra(_Capture({}), info)  # type: ignore[arg-type]
    assert unmeasured["allocated_arena"] is None and unmeasured["suggested_arena_size"] is None


def test_the_host_outputs_go_to_the_core_as_int8_references() -> None:
    info, expected = _info()
    (reference,) = reference_outputs(info.host_outputs, load_model(KWS))
    assert (reference.tensor, reference.dtype, reference.data) == (0, "int8", expected)
    assert "tflite-micro" in reference.source
    verdict = check_outputs({0: expected}, [reference], None)
    assert verdict is not None and verdict.exact
