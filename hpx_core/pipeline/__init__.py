"""One profile run: validate the config, then the stages in order (:mod:`.stages`).

:func:`profile` is the one entry point: the CLI, the Python API, every engine's end-to-end
tests and the benchmarks go through it. ``until`` stops after a named stage (``"build"`` for a
build-only run); ``on_stage`` hears each stage's name as it starts. The locks a run takes (its
work folder's) are held until it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import structlog

from hpx_core.config.validate import Overrides, validate_config
from hpx_core.errors import UsageError
from hpx_core.pipeline.stages import STAGES, read_model
from hpx_core.pipeline.state import ProfileOutcome, RunState, StageUnavailableError
from hpx_core.plugins import Registry, default_registry

__all__ = ["STAGE_NAMES", "ProfileOutcome", "StageUnavailableError", "profile", "read_model"]

STAGE_NAMES = tuple(name for name, _ in STAGES)
log = structlog.get_logger(__name__)


def profile(
    model: Path | None,
    config_file: Path | None,
    overrides: Overrides,
    reg: Registry | None = None,
    on_stage: Callable[[str], None] | None = None,
    *,
    until: str | None = None,
) -> ProfileOutcome:
    """Run every stage in order (or up to and including ``until``)."""
    if until is not None and until not in STAGE_NAMES:
        raise UsageError(f"there is no stage {until!r}", f"stages: {', '.join(STAGE_NAMES)}")
    all_overrides = dict(overrides)
    if model is not None:
        all_overrides["model.path"] = (str(model), "MODEL argument")
    reg = reg or default_registry()
    state = RunState(validate_config(config_file, all_overrides, reg), reg)
    done: list[str] = []
    seconds: dict[str, float] = {}
    with state.resources:
        for name, stage in STAGES:
            if on_stage:
                on_stage(name)
            log.info("stage", name=name)
            started = time.monotonic()
            try:
                stage(state)
            except StageUnavailableError as stopped:
                stopped.outcome = ProfileOutcome.of(state, tuple(done), seconds)
                raise
            seconds[name] = time.monotonic() - started
            done.append(name)
            if name == until:
                break
    return ProfileOutcome.of(state, tuple(done), seconds)
