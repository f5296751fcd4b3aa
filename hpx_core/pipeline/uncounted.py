"""What an uncounted pass is: a declared step that measures something besides a run's timed
counts, without moving them.

A pass says, in order of the run:

- ``check(ctx)``: before anything is fetched (``hpx config validate`` too), refuse what the
  config asks of it that it cannot do (a board it does not run on, a tool it lacks, options
  that contradict each other). Called for every installed pass, wanted or not, so a pass's
  own options are checked even when they do not switch it on.
- ``wanted(ctx)``: whether this run has it.
- ``harness(ctx, contribution)``: a :class:`HarnessRequest`, the harness switches it needs
  compiled in (outside the counted windows; most passes ask for none).
- ``after(ctx, inputs)``: once the timed run is judged, its typed
  :class:`~hpx_core.run.pass_result.PassResult`: the finding, its section of
  ``summary.json``, its files and what ``hpx profile`` shows of it.

The core's own passes and those of installed distributions are listed by
:mod:`hpx_core.pipeline.passes`; a distribution adds one through the ``hpx.passes`` entry
point, nothing in the core names it.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, runtime_checkable

import attrs

from hpx_core.contract import FirmwareContribution
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.products import PassInputs
from hpx_core.run.pass_result import PassResult

R = TypeVar("R", covariant=True)


def _names(values: frozenset[str] | set[str] | tuple[str, ...]) -> frozenset[str]:
    return frozenset(values)


@attrs.frozen
class HarnessRequest:
    """What a pass asks the harness to compile in: some of its switches
    (:data:`hpx_core.firmware.render.HARNESS_SWITCHES`), turned on; the harness's C code owns
    what each one does."""

    switches: frozenset[str] = attrs.field(default=frozenset(), converter=_names)


NOTHING = HarnessRequest()
"""The request of a pass that needs nothing compiled in (it reads the run from outside)."""


@runtime_checkable
class UncountedPass(Protocol[R]):
    """One uncounted pass (see the module's docstring); ``R`` is the type of its finding."""

    @property
    def name(self) -> str: ...

    def check(self, ctx: RunContext) -> None: ...

    def wanted(self, ctx: RunContext) -> bool: ...

    def harness(self, ctx: RunContext, contribution: FirmwareContribution) -> HarnessRequest: ...

    def after(self, ctx: RunContext, inputs: PassInputs) -> PassResult[R]: ...


AnyPass = UncountedPass[Any]
