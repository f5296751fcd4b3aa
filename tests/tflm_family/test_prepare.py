"""One model's TFLM-family glue and its results facts, for the real KWS model."""

from __future__ import annotations

from pathlib import Path

from hpx_tflm_family import InputSpec, host_outputs, input_bytes, model_glue, plan_arena

from hpx_core.boards import get_board
from hpx_core.reading import load_model

KWS = Path(__file__).resolve().parents[2] / "examples/models/mlperf_tiny/kws_ref_model.tflite"


def test_the_facts_are_those_of_the_generated_glue(tmp_path: Path) -> None:
    model = load_model(KWS)
    arena = plan_arena(40_000, get_board("qemu-m55"))
    prepared = model_glue(model, resolver_ops="auto", input="random", input_seed=7,
                          checkout=tmp_path, arena=arena)  # no checkout: upstream methods
    facts = prepared.facts
    assert facts.layers == prepared.glue.layer_names and len(facts.layers) == 13
    assert facts.arena.size == 40_000 and facts.arena.source == "config"
    assert list(facts.resolver_ops) == sorted(set(model.resolver_ops))
    inputs = input_bytes(InputSpec.parse("random", 7), model)
    expected = host_outputs(KWS.read_bytes(), inputs, model)
    assert facts.host_outputs == expected  # the same seeded input
