"""What a kernelbench run adds to its result bundle, and what its error codes mean.

The facts the firmware step recorded (backend, seed, library, the host reference output) come
back here with the capture; the reference output of the last kernel call goes to the core,
which compares the device's with it. Only what was measured or recorded goes into the bundle.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from hpx_core.sdk import Explanation, Json, ReferenceOutput
from hpx_core.sdk.results import Capture

# Error codes of glue/kb_engine.c.
NO_OUTPUT = 1
PREPARE = 1000
KERNEL = 2000
REFERENCE = "NumPy integer reference (hpx_kernelbench.reference), same constants and input"


@attrs.frozen(eq=False)
class KernelbenchFacts:
    """What the firmware step knows and the results step needs (never written to disk)."""

    backend: str
    seed: int
    names: tuple[str, ...]
    library: str
    library_key: str
    expected: bytes  # the host reference's output of the last kernel call


def reference_output(facts: KernelbenchFacts) -> ReferenceOutput:
    """The host reference's output of the last kernel call (int8), for the core's check."""
    return ReferenceOutput(0, "int8", facts.expected, REFERENCE)


def result_extras(capture: Capture, facts: KernelbenchFacts) -> dict[str, Json]:
    """The bundle's ``extra`` section: inputs of the run and the call the output comes from."""
    extra: dict[str, Json] = {
        "backend": facts.backend,
        "seed": facts.seed,
        "engine_library": facts.library,
        "output_of": facts.names[-1],
    }
    metrics = capture.metrics()
    if "scratch_used" in metrics:
        extra["scratch_used"] = metrics["scratch_used"]
    return extra


def explain(code: int, stage: str, backend: str | None, names: Sequence[str]) -> Explanation | None:
    """The words for an error code of the glue, or None for a code it never sends."""

    def layer(index: int) -> str | None:
        return names[index] if 0 <= index < len(names) else None

    if code == NO_OUTPUT:
        return Explanation("kernelbench finished without having run a kernel call",
                           "the harness ran no inference; rebuild the firmware")
    if PREPARE <= code < KERNEL and (name := layer(code - PREPARE)) is not None:
        return Explanation(
            f"the {backend} backend refused layer {name!r} at {stage}: the library asks for "
            "more working memory than the glue planned",
            "this is a bug of hpx-kernelbench's scratch_bound; try the portable backend")
    if KERNEL <= code < 2 * KERNEL and (name := layer(code - KERNEL)) is not None:
        return Explanation(
            f"the {backend} kernel of layer {name!r} returned an error during {stage}",
            "the library refused the call's arguments (shapes or offsets out of its range); "
            "check that layer in the kernels file")
    return None
