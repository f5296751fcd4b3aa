"""What every stage of one run reads and none changes: the checked config with its board, the
plugins, and who listens.

A stage is a function of this context and of the frozen products of the stages before it
(:mod:`hpx_core.pipeline.products`); it answers its own product. Nothing is shared by mutation,
so what a stage needs is in its signature.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from hpx_core.boards import Board
from hpx_core.config import ProfileConfig
from hpx_core.config.validate import ValidatedConfig
from hpx_core.contract import EngineSelection
from hpx_core.hooks import EngineHooks
from hpx_core.plugins import Registry


@attrs.frozen
class RunContext:
    """One run's fixed inputs. ``checking``: ``hpx config validate`` (nothing is fetched);
    ``runs``: the run goes on to a board (not so for ``hpx build`` and ``hpx config validate``);
    ``notify`` hears notes meant for the user (a busy place); ``place_now`` names the board
    farm place the run stage was handed (a matrix cell), else ``target.place`` holds."""

    validated: ValidatedConfig
    registry: Registry
    checking: bool = False
    runs: bool = True
    notify: Callable[[str], None] | None = None
    place_now: Callable[[], str | None] | None = None
    validating: bool = False  # hpx validate: the firmware has the validation pass

    @property
    def config(self) -> ProfileConfig:
        return self.validated.config

    @property
    def board(self) -> Board:
        """Resolved once, when the config was validated."""
        return self.validated.board

    @property
    def engine(self) -> EngineSelection:
        engine = self.config.engine
        return EngineSelection(engine.type, engine.backend, self.validated.engine_config)

    @property
    def hooks(self) -> EngineHooks:
        return EngineHooks(self.registry)

    @property
    def place(self) -> str | None:
        handed = self.place_now() if self.place_now is not None else None
        return handed or self.config.target.place
