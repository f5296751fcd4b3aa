"""Validate a profile config end to end: the core's sections and the engine's own section."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs
from attrs import AttrsInstance

from hpx_core.boards import Board, all_boards, get_board
from hpx_core.config import ConfigDocument, ConfigValue, ProfileConfig, load_config, walk_values
from hpx_core.config.document import DocumentSection
from hpx_core.config.pass_keys import (
    SECTION,
    ClockedOptions,
    ConfiguredPass,
    keys_of,
    options_of,
    owned_keys,
)
from hpx_core.config.schema import ProfilingSection
from hpx_core.contract import ConfigRequest
from hpx_core.errors import ConfigError, HpxError, PluginError, UsageError
from hpx_core.hooks import EngineHooks
from hpx_core.pass_plugins import pass_plugins
from hpx_core.plugins import EngineEntry, Registry, default_registry
from hpx_core.reading import load_model
from hpx_core.sources.licensing import may_run
from hpx_core.suggest import did_you_mean

T = TypeVar("T")
Overrides = Mapping[str, tuple[Any, str]]
"""Dotted config path -> (value, origin such as ``"--board"``)."""


def overrides(origin: str, **values: Any) -> Overrides:
    """Overrides from keywords, ``__`` for the dots (``target__board="qemu-m4"``), all with one
    origin; None values are left out. ``engine__config`` takes a mapping of the engine's keys."""
    found: dict[str, tuple[Any, str]] = {}
    for key, value in values.items():
        if key == "engine__config" and value is not None:
            found |= {f"engine.config.{k}": (v, origin) for k, v in value.items()}
        elif value is not None:
            found[key.replace("__", ".")] = (value, origin)
    return found


@attrs.frozen
class ValidatedConfig:
    """A profile config checked by the core and by the selected engine, with its board
    resolved (once: every later step reads it from here)."""

    config: ProfileConfig
    document: ConfigDocument
    engine: EngineEntry
    engine_config: AttrsInstance
    board: Board
    pass_options: tuple[Any, ...] = ()
    """Each installed pass's own options record (:mod:`hpx_core.config.pass_keys`)."""

    def engine_values(self) -> dict[str, Any]:
        """The engine's config as plain values (for ``hpx config show`` and the bundle)."""
        return attrs.asdict(self.engine_config)

    def values(self) -> list[ConfigValue]:
        """Every resolved value with its origin: the core's sections, then the passes' keys
        (under ``profiling``)."""
        own = [ConfigValue(f"{SECTION}.{key}", value, self.document.origin(f"{SECTION}.{key}"))
               for options in self.pass_options
               for key, value in attrs.asdict(options, recurse=False).items()]
        return [*walk_values(self.config, self.document), *own]

    def options(self, kind: type[T]) -> T:
        """The options record of class ``kind`` (a pass asks for its own)."""
        return options_of(self.pass_options, kind)


def validate_config(
    file: Path | None, overrides: Overrides | None = None, reg: Registry | None = None
) -> ValidatedConfig:
    """Load, override and validate a config, including the engine's own section."""
    reg = reg or default_registry()
    configured = tuple(p for p in pass_plugins(reg.passes) if isinstance(p, ConfiguredPass))
    owners = owned_keys(configured, frozenset(a.name for a in attrs.fields(ProfilingSection)))
    config, document = load_config(file, overrides, pass_keys=owners)
    pass_options = tuple(document.structure(p.options, SECTION, only=keys_of(p))
                         for p in configured)
    try:
        board = get_board(config.target.board)
    except HpxError as error:
        raise document.error("target.board", error.message, error.hint) from None
    board = clocked_board(config, document, board, pass_options)
    engine = _select_engine(config, document, reg, board)
    config = attrs.evolve(config, engine=attrs.evolve(config.engine, type=engine.descriptor.name))
    config = _with_backend(config, document, engine)
    request = ConfigRequest(config.engine.type, config.engine.backend, DocumentSection(document))
    engine_config = EngineHooks(reg).validate_config(engine.descriptor.name, request)
    return ValidatedConfig(config, document, engine, engine_config, board, pass_options)


def clocked_board(config: ProfileConfig, document: ConfigDocument, board: Board,
                  pass_options: tuple[Any, ...] = ()) -> Board:
    """``board`` in ``target.clock``'s mode. With an emulated board the mode is that of the
    silicon board a pass's options name (:class:`ClockedOptions`, a board estimated for;
    checked there); without one it is refused."""
    clock = config.target.clock
    named = [o.clock_board for o in pass_options if isinstance(o, ClockedOptions)]
    estimate = next((name for name in named if name is not None), None)
    try:
        if board.emulated and estimate is not None:
            if estimate in all_boards():  # an unknown name is the estimate's own error
                all_boards()[estimate].at_clock(clock)
            return board
        return board.at_clock(clock)
    except HpxError as error:
        raise document.error("target.clock", error.message, error.hint) from None


def _select_engine(config: ProfileConfig, document: ConfigDocument, reg: Registry,
                   board: Board) -> EngineEntry:
    if not config.engine.type:
        return _default_engine(config, document, reg, board)
    try:
        return reg.engine(config.engine.type)
    except PluginError as error:
        raise ConfigError(
            f"engine.type: {error.message}", error.hint, document.locate("engine.type")
        ) from None


def _default_engine(config: ProfileConfig, document: ConfigDocument, reg: Registry,
                    board: Board) -> EngineEntry:
    """The one installed engine that reads the model's format and may run on the board."""
    path = config.model.path
    if path is None:
        raise UsageError("no model given, and engine.type is not set",
                         "pass MODEL to hpx profile (or set model.path), or set engine.type")
    fmt = load_model(path, reg).format  # missing, unreadable or unread: the readers' words
    candidates = [e for e in reg.engines.values()
                  if fmt in e.descriptor.model_formats and _may_run(reg, e, board)]
    what = f"{fmt} models"
    where = f" and may run on {board.name}"
    if len(candidates) != 1:
        names = ", ".join(sorted(e.descriptor.name for e in candidates)) or "none"
        raise ConfigError(
            f"engine.type is not set and {len(candidates)} installed engines read {what}{where}",
            f"set engine.type (or pass --engine): {names}",
        )
    chosen = candidates[0]
    document.origins["engine.type"] = f"the one installed engine that reads {what}{where}"
    return chosen


def _may_run(reg: Registry, entry: EngineEntry, board: Board) -> bool:
    backends = entry.descriptor.backends[:1] or (None,)
    return may_run(reg.catalog, entry.descriptor.name, backends[0], board).allowed


def _with_backend(
    config: ProfileConfig, document: ConfigDocument, engine: EngineEntry
) -> ProfileConfig:
    backends = engine.descriptor.backends
    backend = config.engine.backend
    if backend is None:
        if not backends:
            return config
        backend = backends[0]
        document.origins["engine.backend"] = f"default of engine {engine.descriptor.name}"
    elif backends and backend not in backends:
        raise document.error(
            "engine.backend",
            f"engine {engine.descriptor.name!r} has no backend {backend!r}"
            + did_you_mean(backend, backends),
            "choose one of: " + ", ".join(backends),
        )
    return attrs.evolve(config, engine=attrs.evolve(config.engine, backend=backend))
