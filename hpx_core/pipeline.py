"""One profile run: the stages of the design, in order, each reading what earlier ones made.

A stage that this version of hpx does not provide yet stops the run with a message naming it,
after everything before it has run for real.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import structlog

from hpx_core.api import Overrides, ValidatedConfig, validate_config
from hpx_core.boards import Board, get_board
from hpx_core.config import ProfileConfig
from hpx_core.errors import HpxError, UsageError
from hpx_core.models import ModelInfo, load_model
from hpx_core.plugins import Registry
from hpx_core.sources import check_may_run

log = structlog.get_logger(__name__)


class StageUnavailableError(HpxError):
    """The pipeline reached a stage this version does not have."""

    exit_code = 3


@attrs.define
class RunState:
    """What the stages have produced so far."""

    validated: ValidatedConfig
    model: ModelInfo | None = None
    board: Board | None = None
    done: list[str] = attrs.field(factory=list)

    @property
    def config(self) -> ProfileConfig:
        return self.validated.config


Stage = Callable[[RunState], None]


@attrs.frozen
class ProfileOutcome:
    """How far a profile run got and what it produced."""

    stages: tuple[str, ...]
    state: RunState


def _config_stage(state: RunState) -> None:
    """The config was validated before the pipeline started; resolve the board it names."""
    try:
        state.board = get_board(state.config.target.board)
    except HpxError as error:
        raise state.validated.document.error("target.board", error.message, error.hint) from None


def _model_stage(state: RunState) -> None:
    """Read the model and check that the selected engine reads its format."""
    path = state.config.model.path
    if path is None:
        raise UsageError("no model given", "pass MODEL to hpx profile, or set model.path")
    state.model = load_model(path)
    engine = state.validated.engine.descriptor
    if state.model.format not in engine.model_formats:
        raise state.validated.document.error(
            "model.path",
            f"engine {engine.name!r} reads {', '.join(engine.model_formats)} models, "
            f"but {path.name} is a {state.model.format} model",
            "choose an engine for this model format (hpx plugins lists them)",
        )


def _license_stage(state: RunState) -> None:
    """Refuse, before anything is fetched, an engine whose license forbids this board."""
    assert state.board is not None
    engine = state.config.engine
    check_may_run(engine.type, engine.backend, state.board)


STAGES: tuple[tuple[str, Stage | None], ...] = (
    ("config", _config_stage),
    ("model analysis", _model_stage),
    ("license check", _license_stage),
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
