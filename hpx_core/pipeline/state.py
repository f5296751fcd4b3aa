"""What a profile run has produced so far, and the record it ends with.

:class:`RunState` is private to the pipeline: the stages fill it in order, and engines never see
it (they get the requests of :mod:`hpx_core.contract`). :class:`ProfileOutcome` is the frozen
answer the pipeline returns.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TypeVar

import attrs

from hpx_core.boards import Board
from hpx_core.build import BuildResult, Project
from hpx_core.build.placement import PlacementReport
from hpx_core.config import ProfileConfig
from hpx_core.config.validate import ValidatedConfig
from hpx_core.contract import (
    EngineSelection,
    FirmwareContribution,
    MemoryLayout,
    MemoryNeeds,
    SourceSet,
    SymbolFinding,
)
from hpx_core.errors import HpxError, PluginError
from hpx_core.models import ModelInfo
from hpx_core.pipeline.model_copy import ModelCopy
from hpx_core.plugins import Registry
from hpx_core.probe.passes import EventPlan
from hpx_core.results import Measurement
from hpx_core.run.record import RunRecord
from hpx_core.wire import Capture

T = TypeVar("T")


class StageUnavailableError(HpxError):
    """The pipeline reached a stage it cannot perform here (e.g. no probe for a silicon board).

    ``outcome`` is what the run made before it stopped (the checked build, say).
    """

    exit_code = 3
    outcome: ProfileOutcome | None = None


@attrs.define
class RunState:
    """The products of the stages done so far; ``resources`` (locks) are held until the end.

    A ``checking`` run (``hpx config validate``) fetches nothing: what it could not check
    without a fetch or without the command line's MODEL is listed in ``unchecked``.
    """

    validated: ValidatedConfig
    registry: Registry
    checking: bool = False
    unchecked: list[str] = attrs.field(factory=list)
    model: ModelInfo | None = None
    model_copy: ModelCopy | None = None  # the corrected copy the engine was given, if any
    board: Board | None = None
    needs: MemoryNeeds | None = None
    layout: MemoryLayout | None = None
    sources: SourceSet | None = None
    contribution: FirmwareContribution | None = None
    project: Project | None = None
    build: BuildResult | None = None
    placement: PlacementReport | None = None
    event_plan: EventPlan | None = None
    findings: tuple[SymbolFinding, ...] = ()
    record: RunRecord | None = None
    notify: Callable[[str], None] | None = None  # hears notes meant for the user (a busy place)
    resources: ExitStack = attrs.field(factory=ExitStack)
    work_folder: Path | None = None  # claimed (and locked) by the firmware stage

    @property
    def config(self) -> ProfileConfig:
        return self.validated.config

    @property
    def engine(self) -> EngineSelection:
        engine = self.config.engine
        return EngineSelection(engine.type, engine.backend, self.validated.engine_config)


def need(value: T | None, what: str) -> T:
    """A product of an earlier stage; its absence is a bug in the stage order."""
    if value is None:
        raise PluginError(f"the pipeline has no {what} yet", "stages ran out of order")
    return value


@attrs.frozen
class ProfileOutcome:
    """How far a profile run got, what each stage took (seconds), and what it produced."""

    stages: tuple[str, ...]
    seconds: dict[str, float]
    validated: ValidatedConfig
    model: ModelInfo | None
    board: Board | None
    layout: MemoryLayout | None
    sources: SourceSet | None
    contribution: FirmwareContribution | None
    build: BuildResult | None
    placement: PlacementReport | None
    findings: tuple[SymbolFinding, ...]
    record: RunRecord | None
    unchecked: tuple[str, ...] = ()
    model_copy: ModelCopy | None = None

    @property
    def config(self) -> ProfileConfig:
        return self.validated.config

    @property
    def measurement(self) -> Measurement | None:
        return self.record.measurement if self.record else None

    @property
    def capture(self) -> Capture | None:
        return self.record.capture if self.record else None

    @property
    def bundle(self) -> Path | None:
        return self.record.bundle if self.record else None

    @classmethod
    def of(cls, state: RunState, stages: tuple[str, ...], seconds: dict[str, float]
           ) -> ProfileOutcome:
        return cls(stages, seconds, state.validated, state.model, state.board, state.layout,
                   state.sources, state.contribution, state.build, state.placement,
                   state.findings, state.record, tuple(state.unchecked), state.model_copy)
