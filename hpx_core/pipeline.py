"""One profile run: the stages of the design, in order, each reading what earlier ones made.

A stage that this version of hpx does not provide yet stops the run with a message naming it,
after everything before it has run for real.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import structlog

from hpx_core.api import Overrides, ValidatedConfig, validate_config
from hpx_core.errors import HpxError
from hpx_core.plugins import Registry

log = structlog.get_logger(__name__)


class StageUnavailableError(HpxError):
    """The pipeline reached a stage this version does not have."""

    exit_code = 3


@attrs.define
class RunState:
    """What the stages have produced so far."""

    validated: ValidatedConfig
    model: Any = None
    done: list[str] = attrs.field(factory=list)


Stage = Callable[[RunState], None]


@attrs.frozen
class ProfileOutcome:
    """How far a profile run got and what it produced."""

    stages: tuple[str, ...]
    state: RunState


def _config_stage(state: RunState) -> None:
    """Nothing to do: the config was validated before the pipeline started."""


STAGES: tuple[tuple[str, Stage | None], ...] = (
    ("config", _config_stage),
    ("model analysis", None),
    ("license check", None),
    ("sources", None),
    ("firmware generation", None),
    ("build", None),
    ("kernel verification", None),
    ("run", None),
    ("capture", None),
    ("results", None),
)


def profile(
    model: Path | None,
    config_file: Path | None,
    overrides: Overrides,
    reg: Registry | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> ProfileOutcome:
    """Run every stage in order; stop with StageUnavailableError at the first one not provided."""
    all_overrides = dict(overrides)
    if model is not None:
        all_overrides["model.path"] = (str(model), "MODEL argument")
    state = RunState(validate_config(config_file, all_overrides, reg))
    for name, stage in STAGES:
        if stage is None:
            done = state.done[-1] if state.done else "nothing"
            raise StageUnavailableError(
                f"profile stopped after {done!r}: the {name!r} stage is not available "
                "in this version of hpx",
                "run the stages that exist separately (hpx config validate, hpx analyze)",
            )
        if on_stage:
            on_stage(name)
        log.info("stage", name=name)
        stage(state)
        state.done.append(name)
    return ProfileOutcome(tuple(state.done), state)
