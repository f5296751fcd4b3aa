"""The TFLM-family glue's error codes (hpx_tflm_glue.h) in words, for ``hpx_explain_error``.

TFLite Micro says why it failed in its log (the glue's ``DebugLog`` lines, kept in the capture):
the first such line goes into the sentence. An ``AllocateTensors`` failure is the arena being
too small, whatever allocation hit the end: the answer names the arena, so the core measures
what the model needs and says it.
"""

from __future__ import annotations

from hpx_core.sdk import Explanation
from hpx_core.sdk.results import Capture

ARENA = "arena"  # the memory pass's name of the tensor arena (hpx_tflm_runner.cc)
ERR_ALLOCATE = 103
_WORDS = {
    101: ("the model's schema version is not the one this TFLite Micro reads",
          "convert the model with a TensorFlow release of the pinned TFLite Micro's era"),
    102: ("an operator of the model could not be registered in the op resolver",
          "check that this TFLite Micro has a kernel for every operator (hpx analyze MODEL)"),
    ERR_ALLOCATE: ("TFLite Micro could not allocate the model's tensors: the tensor arena is "
                   "too small", "raise model.arena_size, or unset it to let hpx measure"),
    104: ("an input tensor's size differs from the input hpx generated for it",
          "report it: the model analysis and the interpreter disagree"),
    105: ("the interpreter's Invoke() failed", "the run's log has TFLite Micro's own message"),
    106: ("the glue was called before a successful init", "report it: the harness is wrong"),
    107: ("the resource variables could not be created in the arena",
          "raise model.arena_size, or unset it to let hpx measure"),
}


def _said(capture: Capture) -> str | None:
    """TFLite Micro's first complaint in the run's text lines."""
    for line in capture.text_lines:
        text = line.removeprefix("#").strip()
        if text:
            return text
    return None


def explain(code: int, capture: Capture) -> Explanation | None:
    """The words for a glue error code (None: not one of the glue's)."""
    if code not in _WORDS:
        return None
    message, hint = _WORDS[code]
    said = _said(capture)
    if said:
        message = f"{message} (TFLite Micro: {said})"
    return Explanation(message, hint, ARENA if code in (ERR_ALLOCATE, 107) else None)
