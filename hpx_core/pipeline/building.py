"""The build and the kernel checks: the linked ELF, placed as planned, and what linked.

A region the linker finds full under a plan hpx chose is planned again with the code's real
size, the glue generated for that plan and built once more (a third plan is not tried);
every other overflow is the plan's own sentence.
"""

from __future__ import annotations

from collections.abc import Callable

from hpx_core.contract import SourceSet, SymbolFinding, SymbolsRequest
from hpx_core.errors import BuildError
from hpx_core.firmware import BuildResult, build_project, get_toolchain
from hpx_core.firmware.builder import RegionOverflowError
from hpx_core.firmware.elfinfo import symbol_inventory
from hpx_core.firmware.placement import check_elf
from hpx_core.models import ModelInfo
from hpx_core.pipeline.context import RunContext
from hpx_core.pipeline.facts import config_json
from hpx_core.pipeline.memory import overflow_sentence, replan_after_overflow
from hpx_core.pipeline.products import Built, Firmware, MemoryPlan

Regenerate = Callable[[MemoryPlan], Firmware]
"""The firmware generated again for another memory plan."""


def build_firmware(ctx: RunContext, model: ModelInfo, firmware: Firmware, memory: MemoryPlan,
                   sources: SourceSet, regenerate: Regenerate) -> Built:
    """Build ``firmware``; an overflow of a region hpx filled by its own choice is planned
    again (``regenerate`` makes the firmware for the new plan) and built once more."""
    try:
        return _built(ctx, model, firmware, memory, sources)
    except RegionOverflowError as overflow:
        again = replan_after_overflow(ctx, memory, overflow)  # raises unless it changed
        try:
            return _built(ctx, model, regenerate(again), again, sources)
        except RegionOverflowError as still:
            raise overflow_sentence(ctx, again, still) from None


def _built(ctx: RunContext, model: ModelInfo, firmware: Firmware, memory: MemoryPlan,
           sources: SourceSet) -> Built:
    build: BuildResult = build_project(
        firmware.project, get_toolchain(ctx.config.target.toolchain),
        config=config_json(ctx.validated), model_sha256=model.sha256, sources=sources,
        jobs=ctx.config.build.jobs or 2,
    )
    placement = check_elf(ctx.board, build.elf, firmware.contribution.buffers)  # the plan held
    return Built(build, placement, firmware, memory)


def verify_kernels(ctx: RunContext, model: ModelInfo, built: Built) -> tuple[SymbolFinding, ...]:
    """Every plugin may inspect the linked symbols; a fatal failed finding stops the run."""
    engine, elf = ctx.engine, built.build.elf
    request = SymbolsRequest(
        engine=engine.name, backend=engine.backend, elf=elf,
        symbols=frozenset(symbol_inventory(elf).names()), model=model,
        facts=built.firmware.contribution.facts,
    )
    findings = tuple(ctx.hooks.verify_symbols(request))
    for finding in findings:
        if finding.fatal and not finding.passed:
            raise BuildError(
                f"kernel check {finding.check!r} failed: {finding.detail}",
                f"the firmware at {elf} did not link what {engine.name}/{engine.backend} needs",
            )
    return findings
