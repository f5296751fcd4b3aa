"""A run's uncounted passes (:mod:`.uncounted` says what one is): the core's own and those
installed distributions declare, and the three points where the run calls them.

The core's own passes come first (the layer check, the memory pass, the power pass, the
validation pass of ``hpx validate``); then,
by entry-point name, each object the ``hpx.passes`` entry points of installed distributions
name (a pass, or a class whose instances are one), as the registry found them.
A distribution adds a pass with one entry point and its own package; nothing threaded
through the stages, no core module names it. An entry point that does not load or is no
pass, or a name two passes take, stops the run with its distribution named.
"""

from __future__ import annotations

from typing import Any

import attrs

from hpx_core.contract import FirmwareContribution
from hpx_core.errors import PluginError
from hpx_core.firmware import HarnessSettings
from hpx_core.pass_plugins import pass_plugins
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.layer_check_pass import LayerCheckPass
from hpx_core.pipeline.memory_pass import MemoryPass
from hpx_core.pipeline.power_pass import PowerPass
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import AnyPass, UncountedPass
from hpx_core.pipeline.validation_pass import ValidationPass
from hpx_core.plugins import DISABLE_ENV, PASS_GROUP, Registry
from hpx_core.run.pass_result import PassResult

CORE_PASSES: tuple[AnyPass, ...] = (LayerCheckPass(), MemoryPass(), PowerPass(),
                                    ValidationPass())


def installed_passes(registry: Registry) -> tuple[AnyPass, ...]:
    """The core's passes, then every installed distribution's."""
    found = [*CORE_PASSES]
    for entry, made in zip(registry.passes, pass_plugins(registry.passes), strict=True):
        if not isinstance(made, UncountedPass):
            where = f"{entry.name} = {entry.value}" + (f" of {entry.dist.name}" if entry.dist
                                                        else "")
            raise PluginError(f"the {PASS_GROUP} entry point {where} names no uncounted pass",
                              "a pass has name, check, wanted, harness and after "
                              "(hpx_core.pipeline.uncounted)")
        found.append(made)
    names = [p.name for p in found]
    for twice in {n for n in names if names.count(n) > 1}:
        owners = [e.value for e in registry.passes if e.name == twice] or ["hpx-core"]
        raise PluginError(f"two uncounted passes are named {twice!r} ({', '.join(owners)})",
                          f"uninstall one, or disable one with {DISABLE_ENV}=<entry point>")
    return tuple(found)


def wanted_passes(ctx: RunContext) -> tuple[AnyPass, ...]:
    return tuple(p for p in installed_passes(ctx.registry) if p.wanted(ctx))


def check_passes(ctx: RunContext) -> None:
    """Every pass refuses, before any fetch, what the config asks of it that it cannot do."""
    for found in installed_passes(ctx.registry):
        found.check(ctx)


def harness_settings(ctx: RunContext, contribution: FirmwareContribution,
                     settings: HarnessSettings) -> HarnessSettings:
    """``settings`` with the switches every wanted pass asks for turned on."""
    asked = [s for p in wanted_passes(ctx) for s in p.harness(ctx, contribution).switches]
    return attrs.evolve(settings, switches=(*settings.switches, *asked))


def run_passes(ctx: RunContext, inputs: PassInputs) -> dict[str, PassResult[Any]]:
    """What every wanted pass found, by pass name."""
    return {p.name: p.after(ctx, inputs) for p in wanted_passes(ctx)}
