"""The validation pass as the run knows it: ``hpx validate`` builds the firmware with the
harness's validation pass compiled in (``HPX_VALIDATE_PASS``: the samples of a window the host
writes, each run through the model and its outputs sent back, hpx_validate.h).

The run itself only builds: :mod:`hpx_core.validation` writes the windows, runs them and
compares every sample with the engine's host reference. A profile never has this pass.
"""

from __future__ import annotations

from hpx_core.contract import FirmwareContribution
from hpx_core.errors import UsageError
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import HarnessRequest
from hpx_core.run.pass_result import PassResult

NAME = "validation"


class ValidationPass:
    """Wanted by ``hpx validate`` alone (``RunContext.validating``)."""

    name: str = NAME

    def check(self, ctx: RunContext) -> None:
        if ctx.validating and not ctx.board.emulated:
            raise UsageError(
                f"hpx validate runs its data set on the emulated boards; {ctx.board.name} is "
                "silicon",
                "validate on qemu-m55 or qemu-m4 (the probe's window writes are not built yet)")

    def wanted(self, ctx: RunContext) -> bool:
        return ctx.validating

    def harness(self, ctx: RunContext, contribution: FirmwareContribution) -> HarnessRequest:
        return HarnessRequest({"HPX_VALIDATE_PASS"})

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassResult[None]:
        """Not reached by hpx validate, which stops after the build; a run that went on
        says where the data set's results go."""
        return PassResult(None, NAME, {"note": "the data set's results are a validation bundle"})
