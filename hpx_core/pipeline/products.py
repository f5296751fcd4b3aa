"""What each stage of a run makes (frozen), and the outcome a run answers with.

The stages are functions in run order (:mod:`hpx_core.pipeline`), each answering one of these:
``Checked`` (everything decided before any fetch), the engine's ``SourceSet``, ``Firmware``
(the engine's glue rendered into a project), ``Built`` (the linked, placed ELF; the memory
plan it was built with), the kernel findings, and the ``RunRecord`` of the run. The outcome
holds the products themselves, each once; what a caller reads of them (the model, the linked
build, the layout) are views of the latest product that has it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import attrs

from hpx_core.boards import Board
from hpx_core.config import ProfileConfig
from hpx_core.config.validate import ValidatedConfig
from hpx_core.contract import (
    FirmwareContribution,
    MemoryLayout,
    MemoryNeeds,
    ResultExtras,
    SourceSet,
    SymbolFinding,
)
from hpx_core.errors import HpxError, PluginError
from hpx_core.firmware import BuildResult, Project
from hpx_core.firmware.placement import PlacementReport
from hpx_core.models import ModelInfo
from hpx_core.pipeline.model_copy import ModelCopy
from hpx_core.probe.event_passes import EventPlan
from hpx_core.results import Measurement
from hpx_core.run.record import RunRecord
from hpx_core.wire import Capture

if TYPE_CHECKING:
    from hpx_core.power.trace import PowerTrace

T = TypeVar("T")


def _strs(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.frozen
class MemoryPlan:
    """What the engine asked to place and where the plan put it (None: the engine plans
    nothing, only the linker decides)."""

    needs: MemoryNeeds | None = None
    layout: MemoryLayout | None = None


@attrs.frozen
class Checked:
    """Everything decided before the first fetch: the model, the counter passes, the memory
    plan; what a checking run could not decide without a fetch is in ``unchecked``."""

    model: ModelInfo | None
    events: EventPlan | None = None
    memory: MemoryPlan = attrs.field(factory=MemoryPlan)
    unchecked: tuple[str, ...] = attrs.field(default=(), converter=_strs)


@attrs.frozen
class Firmware:
    """The engine's glue for the model, rendered with the harness into ``project`` in the
    run's work folder; ``model_copy`` is the corrected copy the engine was given, if any."""

    contribution: FirmwareContribution
    project: Project
    work_folder: Path
    model_copy: ModelCopy | None = None


@attrs.frozen
class Built:
    """The linked ELF checked against the plan, the firmware it came from and the plan it was
    built with (a second plan when the linker measured the code)."""

    build: BuildResult
    placement: PlacementReport
    firmware: Firmware
    memory: MemoryPlan


@attrs.frozen
class ProfileOutcome:
    """How far a profile run got, what each stage took (seconds), and what each made:
    ``firmware`` is the project as first generated, ``built`` the one built (a second memory
    plan regenerates it)."""

    stages: tuple[str, ...]
    seconds: dict[str, float]
    validated: ValidatedConfig
    checked: Checked | None = None
    sources: SourceSet | None = None
    firmware: Firmware | None = None
    built: Built | None = None
    findings: tuple[SymbolFinding, ...] = ()
    record: RunRecord | None = None

    @property
    def model(self) -> ModelInfo | None:
        return self.checked.model if self.checked else None

    @property
    def unchecked(self) -> tuple[str, ...]:
        """What a checking run could not decide without a fetch."""
        return self.checked.unchecked if self.checked else ()

    @property
    def layout(self) -> MemoryLayout | None:
        """The memory plan the firmware was built with (else the one the checks made)."""
        if self.built is not None:
            return self.built.memory.layout
        return self.checked.memory.layout if self.checked else None

    @property
    def contribution(self) -> FirmwareContribution | None:
        firmware = self._firmware
        return firmware.contribution if firmware else None

    @property
    def model_copy(self) -> ModelCopy | None:
        firmware = self._firmware
        return firmware.model_copy if firmware else None

    @property
    def _firmware(self) -> Firmware | None:
        return self.built.firmware if self.built is not None else self.firmware

    @property
    def build(self) -> BuildResult | None:
        return self.built.build if self.built else None

    @property
    def placement(self) -> PlacementReport | None:
        return self.built.placement if self.built else None

    @property
    def config(self) -> ProfileConfig:
        return self.validated.config

    @property
    def board(self) -> Board:
        return self.validated.board

    @property
    def measurement(self) -> Measurement | None:
        return self.record.measurement if self.record else None

    @property
    def capture(self) -> Capture | None:
        return self.record.capture if self.record else None

    @property
    def bundle(self) -> Path | None:
        return self.record.bundle if self.record else None


class StageUnavailableError(HpxError):
    """The pipeline reached a stage it cannot perform here (e.g. no probe for a silicon board).

    ``outcome`` is what the run made before it stopped (the checked build, say).
    """

    exit_code = 3
    outcome: ProfileOutcome | None = None


def need(value: T | None, what: str) -> T:
    """A product a caller requires (the run got past the stage that makes it)."""
    if value is None:
        raise PluginError(f"the run has no {what}", "it stopped before the stage that makes it")
    return value


@attrs.frozen
class PassInputs:
    """What an uncounted pass may read once the timed run is judged."""

    capture: Capture
    contribution: FirmwareContribution
    extras: ResultExtras | None  # the engine's answer for the bundle, if any
    built: Built
    model: ModelInfo
    power: PowerTrace | None = None  # the energy windows an instrument recorded
