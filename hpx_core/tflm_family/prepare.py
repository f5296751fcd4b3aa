"""One model's TFLM-family glue and the facts its results are checked against.

``tflm`` and ``helia-rt`` prepare a model the same way: the op resolver from the model
analysis, the inputs from the config, the generated files, and the host reference outputs
for those inputs. Each engine adds only its library's facts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

from hpx_core.models import ModelInfo
from hpx_core.tflm_family.arena import ArenaPlan
from hpx_core.tflm_family.glue import FamilyGlue, family_glue
from hpx_core.tflm_family.inputs import InputSpec, input_bytes
from hpx_core.tflm_family.reference import host_outputs
from hpx_core.tflm_family.resolver import methods_from_checkout, select_ops


@attrs.frozen
class ModelGlue:
    """The glue files, and what the results stage needs (input, resolver, arena, layers,
    host outputs) as JSON-ready values."""

    glue: FamilyGlue
    info: Mapping[str, object]


def model_glue(
    model: ModelInfo,
    *,
    resolver_ops: str | Iterable[str],
    input: str,
    input_seed: int,
    checkout: Path,
    arena: ArenaPlan,
) -> ModelGlue:
    """Glue for ``model`` against the TFLM tree at ``checkout`` (its resolver's methods)."""
    model_data = Path(model.path).read_bytes()
    ops = select_ops(model, resolver_ops)
    spec = InputSpec.parse(input, input_seed)
    inputs = input_bytes(spec, model)
    glue = family_glue(model, model_data, ops, methods_from_checkout(checkout), inputs, arena)
    expected = host_outputs(model_data, inputs, model)
    info: dict[str, object] = {
        "input": spec.describe(), "resolver_ops": list(ops), "arena_size": arena.size,
        "arena_source": arena.source, "layers": list(glue.layer_names),
        "host_outputs": [o.hex() for o in expected], "model_sha256": model.sha256,
    }
    return ModelGlue(glue, info)
