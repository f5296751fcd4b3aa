"""What a TFLM-family run adds to its result bundle: input, arena, outputs vs the host."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from hpx_core.models import ModelInfo
from hpx_core.tflm_family.arena import arena_summary
from hpx_core.tflm_family.prepare import FamilyFacts
from hpx_core.tflm_family.reference import OutputCheck, compare_outputs
from hpx_core.wire import Capture


def output_checks(capture: Capture, expected: Sequence[bytes], model: ModelInfo) -> tuple[
        OutputCheck, ...]:
    """The device's output tensors compared with the host reference recorded at generation."""
    device = capture.outputs()
    return compare_outputs(tuple(device[i] for i in sorted(device)), tuple(expected), model)


def family_extra(capture: Capture, facts: FamilyFacts, model: ModelInfo) -> dict[str, Any]:
    """The bundle's ``extra`` section: input used, arena (allocated + 1.5x), output checks."""
    checks = output_checks(capture, facts.host_outputs, model)
    return {
        "input": facts.input,
        "resolver_ops": list(facts.resolver_ops),
        "engine_library": facts.library,
        **arena_summary(facts.arena, capture.metrics().get("arena_used")),
        "outputs": {
            "reference": "tflite-micro Python interpreter, same model and input bytes",
            "exact": all(c.exact for c in checks),
            "tensors": [attrs.asdict(c) for c in checks],
        },
    }
