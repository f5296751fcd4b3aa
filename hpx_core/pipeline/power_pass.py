"""The power pass as a run's uncounted pass: energy windows the firmware marks on the board's
two power GPIOs after the counted passes (firmware_templates/harness/hpx_power.h), for an
instrument on the board's supply to record.

``power.enabled`` (``--power``) turns it on. Its checks run before anything is fetched: a
silicon board whose pads hpx drives, for a build (``hpx build --power`` builds the power
firmware); then, for a run on the board, the instrument's driver (the ``hpx-core[power]``
extra) and the instrument, attached. The probe runner does not yet hand a running board over to
the instrument (let the probe go at the firmware's ``POWER`` record, record, take it back), so a
run that would measure is refused once everything else it needs is there, saying so.
"""

from __future__ import annotations

import attrs

from hpx_core.contract import FirmwareContribution
from hpx_core.errors import RunError, UsageError
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import HarnessRequest
from hpx_core.run.pass_result import PassResult

NAME = "power"


@attrs.frozen
class PowerPass:
    """``power.enabled``: the power firmware's energy windows (silicon boards only)."""

    name: str = NAME

    def check(self, ctx: RunContext) -> None:
        power = ctx.config.power
        if not power.enabled:
            return
        from hpx_core.power.readiness import check_board, find_instrument  # numpy: when asked

        check_board(ctx.board)
        if ctx.runs:
            find_instrument(power.serial)
            raise UsageError("hpx profile does not record energy on a board yet: the probe "
                             "runner does not hand the run over to the instrument",
                             "build the power firmware with hpx build --power (docs/"
                             "apollo-boards.md, \"Energy\"); profile without --power for counts")

    def wanted(self, ctx: RunContext) -> bool:
        return ctx.config.power.enabled

    def harness(self, ctx: RunContext, contribution: FirmwareContribution) -> HarnessRequest:
        return HarnessRequest({"HPX_POWER_PASS"})

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassResult[None]:
        """Not reached: :meth:`check` refuses every run that would get here."""
        raise RunError("the power pass has no recording to read",
                       "report it: a run with --power should have been refused before its build")
