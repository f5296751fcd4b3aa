"""One profile run: validate the config, then the stages in order (:mod:`.stages`).

:func:`profile` is the one entry point: the CLI, the Python API, every engine's end-to-end
tests and the benchmarks go through it. ``until`` stops after a named stage (``"build"`` for a
build-only run); ``on_stage`` hears each stage's name as it starts, ``on_note`` what the user
should know on the way (a board farm's place is busy and the run waits for it); ``place``,
asked as the run stage starts, names the board farm place it runs on instead of
``target.place`` (the matrix hands each cell the place it took then). :func:`check`
runs the stages that need no fetch, for ``hpx config validate``. The locks a run takes (its
work folder's) are held until it returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from hpx_core.config import ConfigDocument
from hpx_core.config.validate import Overrides, validate_config
from hpx_core.errors import ConfigError, UsageError
from hpx_core.log import get_logger
from hpx_core.pipeline.stages import STAGES, read_model
from hpx_core.pipeline.state import ProfileOutcome, RunState, StageUnavailableError
from hpx_core.plugins import Registry, default_registry

__all__ = [
    "CHECKED_STAGES",
    "STAGE_NAMES",
    "ProfileOutcome",
    "StageUnavailableError",
    "check",
    "profile",
    "read_model",
]

STAGE_NAMES = tuple(name for name, _ in STAGES)
CHECKED_STAGES = STAGE_NAMES[: STAGE_NAMES.index("memory plan") + 1]
"""The stages before the first fetch: what :func:`check` runs."""
log = get_logger(__name__)


def profile(
    model: Path | None,
    config_file: Path | None,
    overrides: Overrides,
    reg: Registry | None = None,
    on_stage: Callable[[str], None] | None = None,
    *,
    until: str | None = None,
    on_note: Callable[[str], None] | None = None,
    place: Callable[[], str | None] | None = None,
) -> ProfileOutcome:
    """Run every stage in order (or up to and including ``until``)."""
    if until is not None and until not in STAGE_NAMES:
        raise UsageError(f"there is no stage {until!r}", f"stages: {', '.join(STAGE_NAMES)}")
    all_overrides = dict(overrides)
    if model is not None:
        all_overrides["model.path"] = (str(model), "MODEL argument")
    reg = reg or default_registry()
    state = RunState(validate_config(config_file, all_overrides, reg), reg, notify=on_note,
                     place_now=place)
    return _run(state, until, on_stage)


def check(config_file: Path, overrides: Overrides | None = None,
          reg: Registry | None = None) -> ProfileOutcome:
    """Every check ``profile`` makes before its first fetch (config, model analysis, license,
    counter plan, memory plan), with nothing fetched, built or written; a refusal is the same
    error."""
    if not ConfigDocument.load(config_file).tree:
        raise ConfigError(f"{config_file} sets nothing",
                          "a config names at least its engine or its model (see configs/)")
    reg = reg or default_registry()
    validated = validate_config(config_file, overrides, reg)
    return _run(RunState(validated, reg, checking=True), CHECKED_STAGES[-1], None)


def _run(state: RunState, until: str | None, on_stage: Callable[[str], None] | None
         ) -> ProfileOutcome:
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
