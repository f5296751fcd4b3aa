"""One model's TFLM-family glue and the facts its results are checked against.

``tflm`` and ``helia-rt`` prepare a model the same way: the op resolver from the model
analysis, the inputs from the config, the generated files, and the host reference outputs
for those inputs. Each engine adds only its library's facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import attrs

from hpx_core.contract import MemoryLayout
from hpx_core.models import ModelInfo
from hpx_core.tflm_family.arena import ArenaPlan
from hpx_core.tflm_family.glue import FamilyGlue, family_glue
from hpx_core.tflm_family.inputs import InputSpec, input_bytes
from hpx_core.tflm_family.reference import host_outputs
from hpx_core.tflm_family.resolver import methods_from_checkout, select_ops


def _bytes(value: Iterable[bytes]) -> tuple[bytes, ...]:
    return tuple(value)


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class FamilyFacts:
    """What a TFLM-family run's results are checked against: the engine's firmware facts.

    ``library``/``library_key`` name the engine library the firmware links (set by the engine).
    """

    input: str
    resolver_ops: tuple[str, ...] = attrs.field(converter=_strs)
    arena: ArenaPlan
    layers: tuple[str, ...] = attrs.field(converter=_strs)
    host_outputs: tuple[bytes, ...] = attrs.field(converter=_bytes)
    library: str = ""
    library_key: str = ""


@attrs.frozen
class ModelGlue:
    """The glue files, and the facts the results stage needs."""

    glue: FamilyGlue
    facts: FamilyFacts


def model_glue(
    model: ModelInfo,
    *,
    resolver_ops: str | Iterable[str],
    input: str,
    input_seed: int,
    checkout: Path,
    arena: ArenaPlan,
    layout: MemoryLayout | None = None,
) -> ModelGlue:
    """Glue for ``model`` against the TFLM tree at ``checkout`` (its resolver's methods), the
    model and arena where ``layout`` placed them."""
    model_data = Path(model.path).read_bytes()
    ops = select_ops(model, resolver_ops)
    spec = InputSpec.parse(input, input_seed)
    inputs = input_bytes(spec, model)
    glue = family_glue(model, model_data, ops, methods_from_checkout(checkout), inputs, arena,
                       layout)
    expected = host_outputs(model_data, inputs, model)
    facts = FamilyFacts(spec.describe(), ops, arena, glue.layer_names, expected)
    return ModelGlue(glue, facts)
