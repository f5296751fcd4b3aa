"""What a TFLM-family run adds to its result bundle: input, arena, and the host's outputs
(which the core compares with the device's)."""

from __future__ import annotations

from typing import Any

from hpx_core.sdk import ReferenceOutput
from hpx_core.sdk.models import ModelInfo
from hpx_core.sdk.results import Capture
from hpx_tflm_family.arena import arena_summary
from hpx_tflm_family.prepare import FamilyFacts

REFERENCE = "tflite-micro Python interpreter, same model and input bytes"


def reference_outputs(host_outputs: tuple[bytes, ...], model: ModelInfo
                      ) -> tuple[ReferenceOutput, ...]:
    """The host interpreter's outputs, recorded at generation, for the core's comparison."""
    return tuple(ReferenceOutput(index, tensor.dtype, data, REFERENCE)
                 for index, (data, tensor) in enumerate(zip(host_outputs, model.outputs,
                                                            strict=True)))


def family_extra(capture: Capture, facts: FamilyFacts) -> dict[str, Any]:
    """The bundle's ``extra`` section: input used, resolver, library, arena (allocated and
    1.5x)."""
    return {
        "input": facts.input,
        "resolver_ops": list(facts.resolver_ops),
        "engine_library": facts.library,
        **arena_summary(facts.arena, capture.metrics().get("arena_used")),
    }
