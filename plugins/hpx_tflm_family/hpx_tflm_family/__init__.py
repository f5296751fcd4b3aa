"""Glue shared by engines built on TFLite Micro's MicroInterpreter (upstream TFLM, heliaRT, and
heliaAOT's host reference): the generated model array, op resolver, inputs and layer table,
arena sizing, the host reference, the quantization TFLM's kernels refuse to prepare
(prepare_rules.py) and the C++ runner in ``templates/``.

A distribution of its own, not an engine (it declares no entry point): the engines that drive a
MicroInterpreter depend on it, the core knows nothing of it, and no engine imports another.
"""

from hpx_tflm_family.arena import ArenaPlan, arena_summary, plan_arena, suggested_arena
from hpx_tflm_family.errors import explain
from hpx_tflm_family.glue import FamilyGlue, family_glue, layer_names
from hpx_tflm_family.inputs import InputSpec, input_bytes
from hpx_tflm_family.memory import family_needs, planned_arena
from hpx_tflm_family.model_array import c_array, parse_c_array
from hpx_tflm_family.prepare import FamilyFacts, ModelGlue, model_glue
from hpx_tflm_family.prepare_rules import check_model
from hpx_tflm_family.reference import batch_outputs, host_outputs
from hpx_tflm_family.resolver import (
    UPSTREAM_METHODS,
    methods_from_checkout,
    parse_resolver_methods,
    resolver_source,
    select_ops,
)
from hpx_tflm_family.results import family_extra, reference_outputs

__all__ = [
    "UPSTREAM_METHODS",
    "ArenaPlan",
    "FamilyFacts",
    "FamilyGlue",
    "InputSpec",
    "ModelGlue",
    "arena_summary",
    "batch_outputs",
    "c_array",
    "check_model",
    "explain",
    "family_extra",
    "family_glue",
    "family_needs",
    "host_outputs",
    "input_bytes",
    "layer_names",
    "methods_from_checkout",
    "model_glue",
    "parse_c_array",
    "parse_resolver_methods",
    "plan_arena",
    "planned_arena",
    "reference_outputs",
    "resolver_source",
    "select_ops",
    "suggested_arena",
]
