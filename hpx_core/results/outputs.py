"""The device's outputs against the host's: a wrong output is a finding, never a success.

An engine hands over what its host reference computed for each output
(:class:`hpx_core.contract.ReferenceOutput`); the core compares every engine's outputs the same
way and the run's validity follows. Integer outputs must match exactly unless the config names
a tolerance: a quantized kernel that is off by one step is a different kernel. Float outputs
get a default tolerance, since the device's FPU and C library round differently from the
host's (no fused multiply-add on one side, another ``expf`` on the other): an element passes
when ``|device - host| <= FLOAT_ATOL + FLOAT_RTOL * |host|``, as ``numpy.isclose`` words it.
``profiling.output_tolerance`` replaces both defaults with one absolute bound in the tensor's
own units (quantization steps for integer outputs).

Outputs equal to the host's byte for byte are compared without NumPy (the usual case, and the
warm path's).

A run whose engine hands over no host outputs is not a run whose outputs passed: its bundle
says ``outputs: {"checked": false, "reason": ...}`` (:class:`OutputsUnchecked`) and every
reader shows it, so counts of an answer nobody compared are never taken for counts of a right
one. Bundles written before hpx recorded that say nothing; they read as unknown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from hpx_core.contract import Json, ReferenceOutput
from hpx_core.errors import ResultsError

FLOAT_RTOL = 1e-3
FLOAT_ATOL = 1e-5


class OutputMismatchError(ResultsError):
    """The device's outputs differ from the host's beyond the tolerance; the run's bundle is
    kept (complete, validity invalid)."""

    exit_code = 4


@attrs.frozen
class OutputCheck:
    """One output tensor against the host's."""

    tensor: int
    dtype: str
    elements: int
    mismatched: int  # elements that differ at all
    beyond: int  # elements outside the tolerance
    max_abs_diff: float | None  # None: unbounded (a NaN, or no output sent)
    tolerance: str  # the rule applied, in words
    sent: bool = True  # False: the device sent no output of this size

    @property
    def passed(self) -> bool:
        return self.sent and self.beyond == 0

    def words(self) -> str:
        if not self.sent:
            return f"output {self.tensor}: the device sent none of its {self.elements:,} elements"
        if not self.mismatched:
            return f"output {self.tensor}: exact"
        verdict = "within" if self.passed else f"{self.beyond:,} beyond"
        largest = "NaN" if self.max_abs_diff is None else f"{self.max_abs_diff:g}"
        return (f"output {self.tensor}: {self.mismatched:,} of {self.elements:,} elements "
                f"differ, largest by {largest} ({verdict} {self.tolerance})")


@attrs.frozen
class OutputVerdict:
    """Every output of a run against the host reference, and the rule that judged them."""

    reference: str
    tensors: tuple[OutputCheck, ...]
    tolerance: float | None = None  # the configured bound; None: the defaults

    @property
    def exact(self) -> bool:
        return all(t.sent and not t.mismatched for t in self.tensors)

    @property
    def passed(self) -> bool:
        return all(t.passed for t in self.tensors)

    def sentence(self) -> str:
        """One line for the console, ``results show`` and the reports."""
        if self.exact:
            return f"outputs: exact against the {self.reference}"
        head = ("outputs within the tolerance of" if self.passed
                else "OUTPUTS DIFFER from")
        return f"{head} the {self.reference}: " + "; ".join(
            t.words() for t in self.tensors if not t.passed or t.mismatched)

    def error(self, bundle: object) -> OutputMismatchError:
        """The error ``hpx profile`` ends with when the outputs do not pass."""
        return OutputMismatchError(
            "the device's outputs differ from the host's: " + "; ".join(
                t.words() for t in self.tensors if not t.passed),
            f"the counts are those of a wrong answer (bundle {bundle}, validity invalid); "
            f"if the difference is expected, set profiling.output_tolerance")

    checked: ClassVar[bool] = True

    def to_json(self) -> dict[str, Json]:
        return {
            "checked": True,
            "reference": self.reference, "exact": self.exact, "passed": self.passed,
            "tolerance": self.tolerance,
            "tensors": [attrs.asdict(t) for t in self.tensors],
        }


NO_RESULT_EXTRAS = ("the engine answers no hpx_result_extras, so it handed over no host "
                    "outputs to compare")
NO_REFERENCE_OUTPUTS = ("the engine's ResultExtras carry no reference_outputs (the host's "
                        "outputs) to compare")
NO_ENGINE = "no engine's host reference took part in this run"
UNKNOWN = ("unknown: the bundle was written before hpx recorded whether the outputs were "
           "checked")


@attrs.frozen
class OutputsUnchecked:
    """No host outputs were compared with the device's, and why; ``known`` is False for a
    bundle written before hpx recorded it (then nobody can say)."""

    reason: str
    known: bool = True
    checked: ClassVar[bool] = False

    def sentence(self) -> str:
        """One line for the console, ``results show``, the reports and ``hpx compare``."""
        if not self.known:
            return f"outputs: {self.reason}"
        return f"outputs: NOT CHECKED: {self.reason}"

    def to_json(self) -> dict[str, Json]:
        return {"checked": False, "reason": self.reason}


Outputs = OutputVerdict | OutputsUnchecked
"""What a complete run says about its outputs: judged against the host's, or not, and why."""


def outputs_word(outputs: Outputs | None) -> str | None:
    """One word for a table cell (``hpx compare``'s dimensions); None: nothing recorded."""
    if outputs is None:
        return None
    if isinstance(outputs, OutputsUnchecked):
        return "not checked" if outputs.known else "unknown"
    if outputs.exact:
        return "exact"
    return "within tolerance" if outputs.passed else "DIFFER"


def unchecked_note(role: str, outputs: Outputs | None) -> str | None:
    """What a comparison says when one side's outputs were not compared with the host's."""
    if outputs is None or outputs.checked:
        return None
    return (f"the {role}'s {outputs.sentence()}; its counts may be those of a wrong answer "
            "(an engine answers its host outputs in hpx_result_extras)")


def outputs_from_json(data: Any, complete: bool) -> Outputs | None:
    """What a bundle recorded about its outputs; a complete bundle that recorded nothing was
    written before hpx did (unknown); None for a failed one (its outputs never came)."""
    if isinstance(data, Mapping) and data.get("checked") is False:
        return OutputsUnchecked(str(data.get("reason") or "no reason recorded"))
    verdict = verdict_from_json(data)
    if verdict is None and complete:
        return OutputsUnchecked(UNKNOWN, known=False)
    return verdict


def verdict_from_json(data: Any) -> OutputVerdict | None:
    """The verdict a bundle recorded, or None for a bundle without one (or an older one)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("tensors"), list):
        return None
    try:
        tensors = tuple(OutputCheck(**t) for t in data["tensors"])
    except TypeError:
        return None
    return OutputVerdict(str(data.get("reference", "host reference")), tensors,
                         data.get("tolerance"))


def check_outputs(device: Mapping[int, bytes], references: Sequence[ReferenceOutput],
                  tolerance: float | None) -> OutputVerdict | None:
    """Compare what the device sent (tensor index -> bytes) with each reference; None when
    the engine handed over no reference."""
    if not references:
        return None
    sources = dict.fromkeys(r.source for r in references)
    return OutputVerdict(" and ".join(sources),
                         tuple(_check(device.get(r.tensor), r, tolerance) for r in references),
                         tolerance)


def _rule(dtype: str, tolerance: float | None) -> str:
    if tolerance is not None:
        return f"|device - host| <= {tolerance:g}"
    if dtype.startswith("float"):
        return f"|device - host| <= {FLOAT_ATOL:g} + {FLOAT_RTOL:g} x |host|"
    return "exact"


def _check(got: bytes | None, want: ReferenceOutput, tolerance: float | None) -> OutputCheck:
    rule = _rule(want.dtype, tolerance)
    if got == want.data:  # the usual case needs no arithmetic (nor NumPy)
        return OutputCheck(want.tensor, want.dtype, want.elements, 0, 0, 0.0, rule)
    if got is None or len(got) != len(want.data):
        return OutputCheck(want.tensor, want.dtype, want.elements, want.elements,
                           want.elements, None, rule, sent=False)
    import numpy as np

    dtype = np.dtype(want.dtype)
    host = np.frombuffer(want.data, dtype=dtype).astype(np.float64)
    diff = np.abs(np.frombuffer(got, dtype=dtype).astype(np.float64) - host)
    diff[np.isnan(diff)] = np.inf  # a NaN on either side differs by everything
    if tolerance is not None:
        bound = np.full_like(host, tolerance)
    elif dtype.kind == "f":
        bound = FLOAT_ATOL + FLOAT_RTOL * np.abs(host)
    else:
        bound = np.zeros_like(host)
    largest = float(diff.max()) if diff.size else 0.0
    return OutputCheck(want.tensor, want.dtype, int(host.size), int(np.count_nonzero(diff)),
                       int(np.count_nonzero(diff > bound)),
                       largest if np.isfinite(largest) else None, rule)
