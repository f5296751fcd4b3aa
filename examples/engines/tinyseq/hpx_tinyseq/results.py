"""What a tinyseq run adds to its bundle, which kernels must have linked, and its error codes."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import attrs

from hpx_core.sdk import Explanation, Json, ReferenceOutput, SymbolFinding
from hpx_core.sdk.results import Capture
from hpx_tinyseq.glue import KERNEL_SYMBOL

# Error codes of glue/ts_engine.c.
NO_OUTPUT = 1
LAYER = 1000
REFERENCE = "NumPy integer reference (hpx_tinyseq.reference), same constants and input"


@attrs.frozen(eq=False)
class TinyseqFacts:
    """What the firmware step knows and the later steps need (never written to disk)."""

    backend: str
    names: tuple[str, ...]
    input_seed: int
    expected: bytes  # the host reference's output of the last layer


def reference_output(facts: TinyseqFacts) -> ReferenceOutput:
    return ReferenceOutput(0, "int8", facts.expected, REFERENCE)


def result_extras(capture: Capture, facts: TinyseqFacts) -> dict[str, Json]:
    """The bundle's ``extra`` section: what the run was built from and what it reported."""
    extra: dict[str, Json] = {
        "backend": facts.backend,
        "kernel": KERNEL_SYMBOL[facts.backend],
        "input_seed": facts.input_seed,
        "output_of": facts.names[-1],
    }
    metrics = capture.metrics()
    if "layers" in metrics:
        extra["layers"] = metrics["layers"]
    return extra


def verify_symbols(backend: str, symbols: Collection[str], dense: bool) -> list[SymbolFinding]:
    """The backend's dense kernel linked (when the model has a dense layer), no other did."""
    findings = []
    if dense:
        wanted = KERNEL_SYMBOL[backend]
        findings.append(SymbolFinding(f"{backend} dense kernel linked", wanted in symbols,
                                      f"linked: {wanted}" if wanted in symbols
                                      else f"missing {wanted}"))
    others = sorted(s for b, s in KERNEL_SYMBOL.items() if b != backend and s in symbols)
    findings.append(SymbolFinding("no other backend's kernel linked", not others,
                                  f"linked anyway: {', '.join(others)}" if others
                                  else "none linked"))
    return findings


def explain(code: int, stage: str, names: Sequence[str]) -> Explanation | None:
    """Words for an error code of the glue, or None for a code it never sends."""
    if code == NO_OUTPUT:
        return Explanation("tinyseq finished without having run an inference",
                           "the harness ran no inference; rebuild the firmware")
    if LAYER <= code < LAYER + len(names):
        return Explanation(f"layer {names[code - LAYER]!r} has an operator the firmware does "
                           f"not know ({stage})",
                           "the glue and hpx-tinyseq disagree: reinstall hpx-tinyseq")
    return None
