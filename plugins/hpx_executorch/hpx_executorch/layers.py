"""Stable layer identities of an ExecuTorch program: one layer per kernel or delegate call.

A layer is named ``<operator>:c<chain>i<instruction>`` (e.g. ``cortex_m::quantized_conv2d:c0i1``):
the instruction's position in the program, which the runtime's EventTracer reports as (chain,
debug handle) and the export manifest records under the same id. Moves, jumps and frees are not
layers; their cost stays in the whole-model count only.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from hpx_core.sdk import ModelError
from hpx_core.sdk.models import ModelInfo
from hpx_executorch.program import ExecutionPlan, program_of


@attrs.frozen
class Layer:
    slot: int
    chain: int
    instruction: int
    op: str  # operator name without overload, or "delegate:<id>"

    @property
    def ident(self) -> str:
        return f"c{self.chain}i{self.instruction}"

    @property
    def name(self) -> str:
        return f"{self.op}:{self.ident}"


def _layers(value: Iterable[Layer]) -> tuple[Layer, ...]:
    return tuple(value)


def _ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in value)


@attrs.frozen
class LayerTable:
    layers: tuple[Layer, ...] = attrs.field(converter=_layers)
    chain_lengths: tuple[int, ...] = attrs.field(converter=_ints)

    def slots(self) -> list[int]:
        """Slot per instruction, chains concatenated (-1: not a layer)."""
        table: list[int] = []
        for length in self.chain_lengths:
            table += [-1] * length
        first = self.chain_first()
        for layer in self.layers:
            table[first[layer.chain] + layer.instruction] = layer.slot
        return table

    def chain_first(self) -> list[int]:
        first = [0]
        for length in self.chain_lengths:
            first.append(first[-1] + length)
        return first


def forward_plan(model: ModelInfo) -> ExecutionPlan:
    program = program_of(model)
    if program is None or not program.plans:
        raise ModelError(f"{model.path.name} is not an ExecuTorch program",
                         "the executorch engine reads .pte files")
    plans = program.plans
    return next((p for p in plans if p.name == "forward"), plans[0])


def layer_table(model: ModelInfo) -> LayerTable:
    plan = forward_plan(model)
    layers: list[Layer] = []
    for c, chain in enumerate(plan.chains):
        for i, ins in enumerate(chain):
            if ins.target is None:
                continue
            if ins.kind == "kernel":
                op = plan.operators[ins.target].name
            elif ins.kind == "delegate":
                op = f"delegate:{plan.delegates[ins.target]}"
            else:
                continue
            layers.append(Layer(len(layers), c, i, op))
    return LayerTable(layers, [len(chain) for chain in plan.chains])
