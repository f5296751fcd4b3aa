"""The host reference: the same model and input bytes through the ``tflite-micro`` Python
interpreter (the core compares the device's outputs with it: :mod:`hpx_core.results.outputs`).

A model the interpreter refuses (an operator without a kernel, a quantization a kernel's
Prepare rejects) raises a bare ``RuntimeError`` whose text says nothing; TFLite Micro says why
on file descriptor 2. That output is captured while the interpreter runs, so the refusal is one
:class:`~hpx_core.errors.ModelError` naming the model and, when TFLite Micro names it, the
operator, instead of a traceback after words on the terminal.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from hpx_core.sdk import ModelError, ResultsError
from hpx_core.sdk.models import ModelInfo
from hpx_tflm_family.reference_cache import cached_outputs

TOOL = "tflite-micro host reference"
_NODE = re.compile(r"Node (\S+) \(number (\d+)f?\) failed to (\w+)")


def host_outputs(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo) -> tuple[bytes, ...]:
    """The raw bytes of every output of the host TFLM interpreter on ``inputs`` (kept in the
    hpx cache: :mod:`hpx_tflm_family.reference_cache`)."""
    return cached_outputs(model_data, inputs, lambda: interpret(model_data, inputs, model))


def _runtime() -> ModuleType:
    try:
        from tflite_micro.python.tflite_micro import runtime
    except ImportError as exc:  # pragma: no cover - a dependency of hpx-core
        raise ResultsError("the tflite-micro Python package is not installed",
                           "pip install tflite-micro") from exc
    module: ModuleType = runtime
    return module


def interpret(model_data: bytes, inputs: Sequence[bytes], model: ModelInfo) -> tuple[bytes, ...]:
    """Run the host TFLM interpreter once on ``inputs``; the raw bytes of every output."""
    (outputs,) = batch_outputs(model_data, (inputs,), model)
    return outputs


def batch_outputs(model_data: bytes, samples: Sequence[Sequence[bytes]],
                  model: ModelInfo) -> tuple[tuple[bytes, ...], ...]:
    """Every output's bytes for each sample (``hpx validate``), through one interpreter: made
    once per batch, it is most of the cost of a sample."""
    from hpx_core.sdk.enginelib import tool_output_to

    with tempfile.TemporaryDirectory(prefix="hpx-tflm-reference-") as folder:
        said = Path(folder) / "tflite-micro.log"
        with tool_output_to(said, TOOL):
            outcome = _attempt(model_data, samples, model)
        if isinstance(outcome, Exception):
            raise host_refusal(model, str(outcome), said.read_text(errors="replace")) from None
    return outcome


def _attempt(model_data: bytes, samples: Sequence[Sequence[bytes]],
             model: ModelInfo) -> tuple[tuple[bytes, ...], ...] | Exception:
    """The outputs of each sample, or the interpreter's exception (answered, not raised, so
    the captured output holds TFLite Micro's words and no traceback)."""
    import numpy as np

    runtime = _runtime()
    answers = []
    try:
        interpreter = runtime.Interpreter.from_bytes(model_data)
        for inputs in samples:
            for index, (data, tensor) in enumerate(zip(inputs, model.inputs, strict=True)):
                array = np.frombuffer(data, dtype=np.dtype(tensor.dtype)).reshape(tensor.shape)
                interpreter.set_input(array, index)
            interpreter.invoke()
            answers.append(tuple(np.ascontiguousarray(interpreter.get_output(i)).tobytes()
                                 for i in range(len(model.outputs))))
    except (RuntimeError, ValueError) as error:
        return error
    return tuple(answers)


def _complaints(text: str) -> list[str]:
    """TFLite Micro's lines, without the capture's heading and the source tree's prefix."""
    lines = (line.strip() for line in text.splitlines())
    return [line.replace("tensorflow/lite/micro/", "") for line in lines
            if line and not line.startswith("--- ")]


def host_refusal(model: ModelInfo, error: str, said: str) -> ModelError:
    """The interpreter's failure in one cause and one hint: the model, and the operator with
    TFLite Micro's reason when its log names them."""
    lines = _complaints(said)
    node = next((m for m in map(_NODE.search, lines) if m), None)
    reasons = [line for line in lines if not _NODE.search(line)]
    reason = reasons[0] if reasons else error.strip() or "no reason given"
    where = f"{model.path.name}: the host reference (tflite-micro) cannot run the model"
    if node is None:
        return ModelError(f"{where}: {error.strip()} (TFLite Micro: {reason})",
                          "TFLite Micro needs a kernel for every operator, with types and "
                          "quantization its Prepare accepts (hpx analyze MODEL lists them)")
    op, index, step = node.group(1), node.group(2), node.group(3)
    return ModelError(f"{where}: operator {index} ({op}) failed to {step}: {reason}",
                      f"the device's TFLite Micro refuses it too: change operator {index} ({op}) "
                      "as TFLite Micro says and convert the model again")
