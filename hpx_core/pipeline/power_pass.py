"""The power pass as a run's uncounted pass: energy windows the firmware marks on the board's
two power GPIOs after the counted passes (firmware_templates/harness/hpx_power.h), recorded by
an instrument on the board's supply while the probe has let go of the part
(:mod:`hpx_core.probe.power_run`).

``power.enabled`` (``--power``) turns it on. Its checks run before anything is fetched: a
silicon board whose pads hpx drives, for a build (``hpx build --power`` builds the power
firmware); then, for a run on the board, not through a board farm's place, the instrument's
driver (the ``hpx-core[power]`` extra) and the instrument, attached. The run opens the
instrument once (:func:`instrument`); the pass turns its trace into the bundle's ``energy``
section, its windows' samples and a µJ column per layer. A trace that does not show the
windows the firmware marked is said in the section and on the console, never turned into a
number.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import attrs

from hpx_core.contract import FirmwareContribution
from hpx_core.errors import PowerError, UsageError
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import HarnessRequest
from hpx_core.run.pass_result import ConsoleSummary, PassResult

if TYPE_CHECKING:  # numpy comes with them: loaded when energy is asked for
    from hpx_core.power.windows import PassEnergy
    from hpx_core.probe.power_run import PowerRun

NAME = "power"
SECTION = "energy"


@attrs.frozen
class PowerPass:
    """``power.enabled``: the power firmware's energy windows (silicon boards only)."""

    name: str = NAME

    def check(self, ctx: RunContext) -> None:
        power = ctx.config.power
        if not power.enabled:
            return
        from hpx_core.power.readiness import check_board, find_instrument

        check_board(ctx.board)
        if ctx.runs and ctx.place is not None:
            raise UsageError("energy is measured on a board at this host; a board farm's "
                             "place runs it elsewhere",
                             "profile with the board's probe and instrument attached here, "
                             "without --place")
        if ctx.runs:
            find_instrument(power.serial)

    def wanted(self, ctx: RunContext) -> bool:
        return ctx.config.power.enabled

    def harness(self, ctx: RunContext, contribution: FirmwareContribution) -> HarnessRequest:
        return HarnessRequest({"HPX_POWER_PASS"})

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassResult[PassEnergy | None]:
        from hpx_core.power.windows import pass_energy
        from hpx_core.results.energy import (
            WINDOWS_FILE,
            energy_document,
            energy_lines,
            windows_file,
        )

        trace = inputs.power
        if trace is None:
            return _unmeasured("the run recorded no power trace",
                               "run on the board with its probe and instrument attached")
        layers = len(inputs.capture.of("LAYERINFO"))
        try:
            energy = pass_energy(trace, ctx.config.profiling.iterations, layers)
        except PowerError as failed:
            return _unmeasured(failed.message, failed.hint)
        power = ctx.config.power
        setup = {"instrument": power.instrument, "inputs": list(power.inputs),
                 "supply": power.supply}
        shown = ConsoleSummary(("µJ",), {x.index: (f"{x.median_uj:.3f}",)
                                         for x in energy.layers}, lines=energy_lines(energy))
        return PassResult(energy, SECTION, energy_document(energy, trace, setup),
                          {WINDOWS_FILE: windows_file(trace)}, shown)


def _unmeasured(message: str, hint: str) -> PassResult[PassEnergy | None]:
    return PassResult(None, SECTION, {"issue": message, "hint": hint},
                      shown=ConsoleSummary(lines=(f"energy: not measured: {message} ({hint})",)),
                      issues=(f"energy not measured: {message}",))


@contextmanager
def instrument(ctx: RunContext) -> Iterator[PowerRun | None]:
    """The instrument a run records its energy windows with, open for the run (None when the
    run measures no energy)."""
    power = ctx.config.power
    if not power.enabled:
        yield None
        return
    from hpx_core.power.joulescope import Wiring, choose, instruments, load_driver
    from hpx_core.probe.power_run import PowerRun

    driver = load_driver()()
    try:
        device = choose(instruments(driver), power.serial)
        yield PowerRun(driver, device, 2 * ctx.config.profiling.iterations,
                       sample_rate=power.sample_rate, wiring=Wiring(*power.inputs))
    finally:
        driver.finalize()
