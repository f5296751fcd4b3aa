"""The profile pipeline's run stage on a silicon board: through the probe, or stop after the
build when no probe is attached (the firmware is built and placed; that is worth having)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hpx_core.boards import Board
from hpx_core.build import BuildResult, build_info
from hpx_core.errors import ToolError
from hpx_core.probe.passes import run_extra_passes
from hpx_core.probe.probes import NoProbeError, choose_probe, list_probes
from hpx_core.probe.pyocd_api import PyocdApi, pyocd_api
from hpx_core.probe.record import run_and_record_on_probe
from hpx_core.probe.runner import ProbeSettings
from hpx_core.results import Measurement
from hpx_core.wire import Capture

if TYPE_CHECKING:
    from hpx_core.pipeline import RunState


def run_through_probe(
    state: RunState,
    board: Board,
    built: BuildResult,
    config: Mapping[str, Any],
    *,
    api: PyocdApi | None = None,
    provenance_extra: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    extra_from: Callable[[Capture], Mapping[str, Any]] | None = None,
) -> None:
    """Flash and capture into a bundle; no probe (or no pyocd) ends the run after the build."""
    from hpx_core.pipeline import StageUnavailableError

    model = state.need(state.model, "model")
    plan = state.event_plan
    settings = ProbeSettings(timeout=600.0)
    others: list[Measurement] = []
    try:
        if plan is not None and len(plan.counters.passes) > 1:
            # no probe, no point building the other passes' images first
            choose_probe(list_probes(api or pyocd_api()), state.config.target.probe)
            others = run_extra_passes(state.need(state.project, "project"), plan,
                                      toolchain=state.config.target.toolchain,
                                      probe=state.config.target.probe, settings=settings, api=api)
        record = run_and_record_on_probe(
            board,
            built.elf,
            state.config.output.dir,
            engine=state.config.engine.type,
            probe=state.config.target.probe,
            settings=settings,
            api=api,
            toolchain=f"{built.toolchain} {built.toolchain_version}",
            model_sha256=model.sha256,
            config=config,
            build=build_info(built),
            provenance_extra=provenance_extra,
            extra=extra,
            extra_from=extra_from,
            event_names=plan.names if plan is not None else None,
            merge_with=others,
            planned_events=[e for p in plan.counters.passes for e in p] if plan else [],
        )
    except (NoProbeError, ToolError) as error:
        raise StageUnavailableError(
            f"stopped after the build: {error.message}; the firmware for {board.name} is "
            f"{built.elf} ({built.sizes.text} B text, {built.sizes.bss} B bss)",
            "attach the EVB's debug probe and run again (`hpx probes` lists what hpx sees)",
        ) from None
    state.measurement = record.measurement
    state.bundle = record.bundle
