"""A too-small arena, said with the number that fits it.

When the engine explains a failed run as its arena being too small (``Explanation.arena``, the
memory pass's name of the buffer ``model.arena_size`` sizes) and the user set that size, the
engine cannot tell from the failed run what the model needs: its allocator stopped at the first
allocation that did not fit. So the run is made once more with the engine's own large arena
(``model.arena_size`` unset), one iteration, its bundle in a temporary folder; its memory pass
reports the need (``<arena>.needed``, else ``<arena>.planned``), and the error names it with
the config line that fits.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import attrs

from hpx_core.errors import HpxError, RunError
from hpx_core.log import get_logger
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.memory_pass import NAME as MEMORY
from hpx_core.pipeline.products import ProfileOutcome
from hpx_core.pipeline.workdir import work_root
from hpx_core.results.memory import MemoryUse

log = get_logger(__name__)
OPTION = "model.arena_size"


class ArenaTooSmallError(RunError):
    """The engine said the arena ``model.arena_size`` sizes is too small; ``arena`` is its
    name in the memory pass."""

    def __init__(self, message: str, hint: str, arena: str) -> None:
        super().__init__(message, hint)
        self.arena = arena


def measuring_context(ctx: RunContext, output: Path) -> RunContext:
    """The same run with the engine's own arena, the memory pass on, one quick iteration, its
    bundle in ``output`` and its work folder where the user's runs build."""
    config = ctx.config
    changed = attrs.evolve(
        config,
        model=attrs.evolve(config.model, arena_size=None),
        profiling=attrs.evolve(config.profiling, iterations=1, warmup=0, memory=True,
                               check_layers="off"),
        output=attrs.evolve(config.output, dir=output),
        build=attrs.evolve(config.build, work_dir=work_root(config)),
    )
    return attrs.evolve(ctx, validated=attrs.evolve(ctx.validated, config=changed))


def measured_need(outcome: ProfileOutcome, arena: str) -> tuple[int, int | None] | None:
    """What the measuring run's memory pass says the arena needs, and the arena it ran with."""
    use = outcome.record.result(MEMORY, MemoryUse) if outcome.record is not None else None
    if use is None:
        return None
    need = use.facts.get(f"{arena}.needed", use.facts.get(f"{arena}.planned"))
    return None if need is None else (need, use.facts.get(f"{arena}.size"))


def fitted_error(ctx: RunContext, short: ArenaTooSmallError,
                 run: Callable[[RunContext], ProfileOutcome]) -> HpxError:
    """The error that names the bytes the model needs; ``short`` itself when it cannot be
    measured (the second run failed too, or the engine reports no such figure)."""
    configured = ctx.config.model.arena_size
    if configured is None:
        return short
    log.info("arena measure", configured=configured, arena=short.arena)
    with tempfile.TemporaryDirectory(prefix="hpx-arena-") as folder:
        try:
            found = measured_need(run(measuring_context(ctx, Path(folder))), short.arena)
        except HpxError:
            found = None
    if found is None:
        return short
    need, probe = found
    how = f"measured in a second run with a {probe:,}-byte arena" if probe else "measured"
    document = ctx.validated.document
    if configured >= need:
        return document.error(
            OPTION, f"{configured:,} bytes hold what the model uses ({need:,} bytes, {how}), "
            f"yet allocation failed: {short.message}",
            f"the allocator needs room of its own while it plans: raise {OPTION} above {need}")
    return document.error(
        OPTION, f"{configured:,} bytes is too small for this model, which needs {need:,} bytes "
        f"({how})", f"set `{OPTION}: {need}` in the config, the smallest arena that fits")
