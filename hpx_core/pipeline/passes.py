"""Uncounted passes: what a run measures besides its timed counts, without moving them.

A pass is one declared step: it may ask the harness for something it compiles in outside the
counted windows (``harness``: the settings with its own switched on), and once the timed run is
judged it adds a section (and files) to the bundle (``after``). The layer check: the harness
runs every layer again after the measured passes and sends what each produced, which is judged
against the engine's host reference. The memory pass: one more inference in which the harness
measures the stack per layer and the engine its arenas (:mod:`.memory_pass`). A new pass is a
class and an entry of :data:`PASSES`; nothing is threaded through the stages for it.
"""

from __future__ import annotations

from typing import Protocol

import attrs

from hpx_core.contract import FirmwareContribution
from hpx_core.firmware import HarnessSettings
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.insight_pass import InstructionProfilePass
from hpx_core.pipeline.memory_pass import MemoryPass
from hpx_core.pipeline.products import PassInputs
from hpx_core.run.record import PassOutput


class UncountedPass(Protocol):
    """One uncounted pass (see the module's docstring)."""

    @property
    def name(self) -> str: ...

    def wanted(self, ctx: RunContext) -> bool: ...

    def harness(self, ctx: RunContext, contribution: FirmwareContribution,
                settings: HarnessSettings) -> HarnessSettings: ...

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassOutput: ...


@attrs.frozen
class LayerCheckPass:
    """``--check-layers``: every layer's outputs against the engine's host reference."""

    name: str = "layer check"

    def wanted(self, ctx: RunContext) -> bool:
        return ctx.config.profiling.check_layers != "off"

    def harness(self, ctx: RunContext, contribution: FirmwareContribution,
                settings: HarnessSettings) -> HarnessSettings:
        """The harness's check mode: it needs the engine's ``hpx_engine_check()`` and host
        reference, so an engine without one runs no check pass."""
        mode = ctx.config.profiling.check_layers if contribution.layer_reference else "off"
        return attrs.evolve(settings, check_layers=mode)

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassOutput:
        from hpx_core.results.layer_check import check_layers  # NumPy: only for a check

        note = inputs.extras.layer_check_note if inputs.extras is not None else None
        check = check_layers(inputs.capture, inputs.contribution.layer_reference,
                             ctx.config.profiling.check_layers, ctx.engine.name, note)
        return PassOutput("layer_check", check.to_json(), check.files(), check)


PASSES: tuple[UncountedPass, ...] = (MemoryPass(), LayerCheckPass(), InstructionProfilePass())


def harness_settings(ctx: RunContext, contribution: FirmwareContribution,
                     settings: HarnessSettings) -> HarnessSettings:
    """``settings`` with what every wanted pass compiles in."""
    for found in PASSES:
        if found.wanted(ctx):
            settings = found.harness(ctx, contribution, settings)
    return settings


def run_passes(ctx: RunContext, inputs: PassInputs) -> tuple[PassOutput, ...]:
    """What every wanted pass adds to the bundle."""
    return tuple(p.after(ctx, inputs) for p in PASSES if p.wanted(ctx))
