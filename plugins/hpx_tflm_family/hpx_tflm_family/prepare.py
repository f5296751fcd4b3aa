"""One model's TFLM-family glue and the facts its results are checked against.

``tflm`` and ``helia-rt`` prepare a model the same way: the op resolver from the model
analysis, the inputs from the config, the generated files, and the host reference outputs
for those inputs. Each engine adds only its library's facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import attrs

from hpx_core.sdk import LayerReference, MemoryLayout
from hpx_core.sdk.firmware import Board
from hpx_core.sdk.models import ModelInfo
from hpx_tflm_family.arena import ArenaPlan
from hpx_tflm_family.check import (
    CHECK_SOURCE,
    check_source,
    check_staging,
    fault_layer,
    staging_size,
)
from hpx_tflm_family.glue import FamilyGlue, family_glue
from hpx_tflm_family.inputs import InputSpec, input_bytes, keep_inputs
from hpx_tflm_family.prepare_rules import keep_passed_check
from hpx_tflm_family.reference import host_outputs
from hpx_tflm_family.resolver import methods_from_checkout, select_ops


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
    """The glue files, the facts the results stage needs and, with the layer check, the host
    reference of every layer."""

    glue: FamilyGlue
    facts: FamilyFacts
    reference: LayerReference | None = None


def _with_check(glue: FamilyGlue, model: ModelInfo, model_data: bytes, inputs: tuple[bytes, ...],
                board: Board, arena: ArenaPlan) -> tuple[FamilyGlue, LayerReference]:
    """The glue with the check's tables and staging buffer (refused when RAM is short)."""
    # the host interpreter, flatbuffers and NumPy load only for a run that checks layers
    from hpx_tflm_family.layer_reference import layer_io, layer_reference

    io = layer_io(model_data)
    staging = staging_size(io)
    buffer = check_staging(board, arena, staging)
    reference = layer_reference(model_data, inputs, model)
    files = {**glue.files, CHECK_SOURCE: check_source(io, reference, staging, fault_layer())}
    return attrs.evolve(glue, files=files, buffers=(*glue.buffers, buffer)), reference


def model_glue(
    model: ModelInfo,
    *,
    resolver_ops: str | Iterable[str],
    input: str,
    input_seed: int,
    checkout: Path,
    arena: ArenaPlan,
    layout: MemoryLayout | None = None,
    board: Board | None = None,
    check_layers: str = "off",
) -> ModelGlue:
    """Glue for ``model`` against the TFLM tree at ``checkout`` (its resolver's methods), the
    model and arena where ``layout`` placed them; with ``check_layers`` on (``first``/``all``)
    also the layer check for ``board``."""
    model_data = Path(model.path).read_bytes()
    ops = select_ops(model, resolver_ops)
    spec = InputSpec.parse(input, input_seed)
    inputs = input_bytes(spec, model, keep=False)
    expected = host_outputs(model_data, inputs, model)  # a model TFLM refuses stops here
    keep_inputs(spec, model, inputs)
    keep_passed_check(model)
    glue = family_glue(model, model_data, ops, methods_from_checkout(checkout), inputs, arena,
                       layout)
    facts = FamilyFacts(spec.describe(), ops, arena, glue.layer_names, expected)
    reference = None
    if check_layers != "off" and board is not None:
        glue, reference = _with_check(glue, model, model_data, inputs, board, arena)
    return ModelGlue(glue, facts, reference)
