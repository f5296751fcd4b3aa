"""The layer check as a run's uncounted pass (``--check-layers``): the harness runs every
layer again after the measured passes and sends what each produced, which is judged against
the engine's host reference (:mod:`hpx_core.results.layer_check`). One of the core's own
passes (:mod:`hpx_core.pipeline.passes`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hpx_core.contract import FirmwareContribution
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.pipeline.uncounted import NOTHING, HarnessRequest
from hpx_core.run.pass_result import ConsoleSummary, PassResult

if TYPE_CHECKING:  # NumPy loads only when a run checks layers
    from hpx_core.results.layer_check import LayerCheck

NAME = "layer check"
"""The pass's name: its result in ``RunRecord.passes``."""
SECTION = "layer_check"
_STATUS_STYLE = {"exact": "green", "different": "bold red", "inherited": "yellow"}


@attrs.frozen
class LayerCheckPass:
    """``--check-layers``: every layer's outputs against the engine's host reference."""

    name: str = NAME

    def check(self, ctx: RunContext) -> None:
        """Nothing to refuse: an engine without a host reference runs no check pass, and the
        bundle says why (its ``layer_check_note``)."""

    def wanted(self, ctx: RunContext) -> bool:
        return ctx.config.profiling.check_layers != "off"

    def harness(self, ctx: RunContext, contribution: FirmwareContribution) -> HarnessRequest:
        """The harness's check mode: it needs the engine's ``hpx_engine_check()`` and host
        reference, so an engine without one runs no check pass."""
        mode = ctx.config.profiling.check_layers if contribution.layer_reference else "off"
        if mode == "off":
            return NOTHING
        return HarnessRequest({"HPX_CHECK_LAYERS", *(["HPX_CHECK_ALL"] if mode == "all" else [])})

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassResult[LayerCheck]:
        from hpx_core.results.layer_check import check_layers  # NumPy: only for a check

        note = inputs.extras.layer_check_note if inputs.extras is not None else None
        check = check_layers(inputs.capture, inputs.contribution.layer_reference,
                             ctx.config.profiling.check_layers, ctx.engine.name, note)
        return PassResult(check, SECTION, check.to_json(), check.files(), shown(check))


def shown(check: LayerCheck) -> ConsoleSummary:
    """Each layer's verdict against the host as a column, the first disagreement as a line."""
    from hpx_core.results.check_view import layer_check_line

    return ConsoleSummary(("vs host",), {v.index: (_styled(v.status),) for v in check.layers},
                          blank="not checked", lines=(layer_check_line(check),))


def _styled(status: str) -> str:
    style = _STATUS_STYLE.get(status)
    return f"[{style}]{status}[/]" if style else status
