"""Quantization TFLite Micro's kernels refuse in their Prepare step, found in the model file.

The MicroInterpreter prepares every operator when it allocates tensors; a kernel whose
``Prepare`` rejects the operator's quantization fails the whole model, on the host reference
and on the device alike, only after sources were fetched and a firmware generated. These rules
are the ones of the pinned TFLite Micro's activation kernels that depend on nothing but the
tensors' types, scales and zero points (``kernels/softmax_common.cc``
``CalculateSoftmaxParams``, which the CMSIS-NN Softmax calls too; ``log_softmax.cc``;
``logistic_common.cc``; ``tanh.cc``), so ``hpx config validate`` can say them, with the
operator and the value to change, from the flatbuffer alone.

A rule is checked against the first scale and zero point of a tensor, which is what TFLite
Micro's ``TfLiteTensor.params`` holds.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from hpx_core.sdk import ModelRefusal
from hpx_core.sdk.cache import KeptFolder
from hpx_core.sdk.models import MALFORMED, ModelInfo

INT8, INT16 = 9, 7  # TFLite TensorType
TYPE_NAMES = {INT8: "int8", INT16: "int16"}
EXACT, NEAR, LOG2 = "exact", "near", "log2"  # how TFLite Micro compares a scale


@attrs.frozen
class Side:
    """What TFLite Micro reads of one tensor of an operator."""

    type: int
    scale: float
    zero_point: int


@attrs.frozen
class ScaleRule:
    """A scale and zero point a kernel requires of one tensor (``tensor``: input/output)."""

    tensor: str
    scale: float | None
    zero_point: int
    compare: str = EXACT
    source: str = ""

    def broken(self, side: Side) -> bool:
        return side.zero_point != self.zero_point or not self._scale_ok(side.scale)

    def _scale_ok(self, scale: float) -> bool:
        if self.scale is None:
            return True
        if self.compare == NEAR:  # TF_LITE_ENSURE_NEAR with a 0.1 % tolerance
            return abs(scale - self.scale) <= 0.001 * self.scale
        if self.compare == LOG2:  # CheckedLog2: a power of two within 1e-3 of its log2
            return scale > 0 and _log2_pot(scale) == round(math.log2(self.scale))
        return scale == self.scale  # float32 compared exactly: 1/256 etc. are representable


def _log2_pot(scale: float) -> int | None:
    exponent = math.log2(scale)
    return round(exponent) if abs(exponent - round(exponent)) < 1e-3 else None


_SOFTMAX = "kernels/softmax_common.cc"
RULES: dict[tuple[str, int, int], tuple[ScaleRule, ...]] = {
    ("SOFTMAX", INT8, INT8): (ScaleRule("output", 1 / 256, -128, EXACT, _SOFTMAX),),
    ("SOFTMAX", INT8, INT16): (ScaleRule("output", 1 / 65536, -32768, NEAR, _SOFTMAX),),
    ("SOFTMAX", INT16, INT16): (ScaleRule("input", None, 0, EXACT, _SOFTMAX),
                                ScaleRule("output", 1 / 32768, 0, NEAR, _SOFTMAX)),
    ("LOG_SOFTMAX", INT8, INT8): (ScaleRule("output", 16 / 256, 127, EXACT,
                                            "kernels/log_softmax.cc"),),
    ("LOGISTIC", INT8, INT8): (ScaleRule("output", None, -128, EXACT,
                                         "kernels/logistic_common.cc"),),
    ("LOGISTIC", INT16, INT16): (ScaleRule("input", None, 0, EXACT, "kernels/logistic_common.cc"),
                                 ScaleRule("output", 2.0**-15, 0, LOG2,
                                           "kernels/logistic_common.cc")),
    ("TANH", INT16, INT16): (ScaleRule("input", None, 0, EXACT, "kernels/tanh.cc"),
                             ScaleRule("output", 2.0**-15, 0, LOG2, "kernels/tanh.cc")),
}
"""(operator, input type, output type) -> what TFLite Micro's Prepare requires."""


@attrs.frozen
class Refused:
    """One operator a kernel's Prepare refuses: where it is and which rule it breaks."""

    index: int
    subgraph: int
    op: str
    rule: ScaleRule
    side: Side

    def where(self) -> str:
        graph = f" of subgraph {self.subgraph}" if self.subgraph else ""
        return f"operator {self.index}{graph} ({self.op})"


def _fraction(value: float) -> str:
    """1/256 for 0.00390625: the way the kernels write the scales they require."""
    if value > 0 and float(1 / value).is_integer():
        return f"1/{int(1 / value)}"
    return f"{value:.9g}"


def _requirement(rule: ScaleRule) -> str:
    scale = f"scale {_fraction(rule.scale)} and " if rule.scale is not None else ""
    return f"{scale}zero point {rule.zero_point}"


def refusal(found: Refused) -> ModelRefusal:
    """The refusal in words: the operator, what it has, what TFLite Micro requires."""
    rule, side = found.rule, found.side
    kind = TYPE_NAMES.get(side.type, str(side.type))
    return ModelRefusal(
        f"TFLite Micro cannot prepare {found.where()}: its {kind} {rule.tensor} has scale "
        f"{side.scale:.9g} and zero point {side.zero_point}, its kernel requires "
        f"{_requirement(rule)} ({rule.source})",
        f"quantize the {rule.tensor} of {found.where()} to {_requirement(rule)}, as the TFLite "
        "converter does, and convert the model again")


def _side(subgraph: Any, index: int) -> Side:
    tensor = subgraph.Tensors(index)
    quant = tensor.Quantization()
    scale, zero = 0.0, 0
    if quant is not None and quant.ScaleLength() and quant.ZeroPointLength():
        scale, zero = float(quant.Scale(0)), int(quant.ZeroPoint(0))
    return Side(int(tensor.Type()), scale, zero)


def _names(model: Any) -> list[str]:
    from tflite.utils import BUILTIN_OPCODE2NAME

    names = []
    for i in range(model.OperatorCodesLength()):
        code = model.OperatorCodes(i)
        builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
        names.append(BUILTIN_OPCODE2NAME.get(builtin, f"BUILTIN_{builtin}"))
    return names


def _refused(model: Any) -> Iterator[Refused]:
    names = _names(model)
    for s in range(model.SubgraphsLength()):
        subgraph = model.Subgraphs(s)
        for i in range(subgraph.OperatorsLength()):
            op = subgraph.Operators(i)
            if not (op.InputsLength() and op.OutputsLength()):
                continue
            sides = {"input": _side(subgraph, op.Inputs(0)),
                     "output": _side(subgraph, op.Outputs(0))}
            name = names[op.OpcodeIndex()]
            for rule in RULES.get((name, sides["input"].type, sides["output"].type), ()):
                if rule.broken(sides[rule.tensor]):
                    yield Refused(i, s, name, rule, sides[rule.tensor])


def prepare_refusals(data: bytes) -> tuple[Refused, ...]:
    """Every operator of a ``.tflite`` model a kernel's Prepare refuses, in model order."""
    import tflite

    try:
        return tuple(_refused(tflite.Model.GetRootAs(data, 0)))
    except MALFORMED:  # the core's reader said what is wrong with such a file
        return ()


CHECKS = KeptFolder("prepare-checks", keep=512)
"""Models check_model found nothing against, by their bytes and these rules: every run (and
every validation) asks, and reading the model with the ``tflite`` package (and the NumPy it
loads) costs a new process about 0.1 s. Kept by :func:`keep_passed_check` once a run got as far
as its firmware, never by a check alone: a refused run (``hpx config validate`` too) keeps
nothing."""


@functools.cache
def _rules_digest() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


def _check_key(model: ModelInfo) -> str:
    return hashlib.sha256(f"{model.sha256}|{_rules_digest()}".encode()).hexdigest()


def check_model(model: ModelInfo) -> ModelRefusal | None:
    """The first operator TFLite Micro cannot prepare, in words; None when none is known (at
    once for a model a run already took through these rules)."""
    if model.format != "tflite":
        return None
    if CHECKS.load(_check_key(model)) == {"refusal": None}:
        return None
    found = prepare_refusals(Path(model.path).read_bytes())
    return refusal(found[0]) if found else None


def keep_passed_check(model: ModelInfo) -> None:
    """Remember that ``model`` passed :func:`check_model` (its firmware is being made)."""
    if model.format != "tflite":
        return
    key = _check_key(model)
    if CHECKS.load(key) is None:
        CHECKS.store(key, {"refusal": None})
