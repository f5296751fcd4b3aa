"""The typed Python API: every CLI command is one of these functions.

A notebook or a CI script calls them directly and gets attrs objects back; errors are
:class:`~hpx_core.errors.HpxError` with a hint.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.config import ConfigDocument, ProfileConfig, load_config
from hpx_core.engine import ConfigContext
from hpx_core.errors import ConfigError, PluginError
from hpx_core.plugins import EngineEntry, PluginFailure, Registry, load_registry
from hpx_core.suggest import did_you_mean

Overrides = Mapping[str, tuple[Any, str]]
"""Dotted config path -> (value, origin such as ``"--board"``)."""

_registry: Registry | None = None


def registry(*, no_plugins: bool = False, reload: bool = False) -> Registry:
    """The plugin registry of this process, loaded once."""
    global _registry
    if _registry is None or reload or no_plugins:
        _registry = load_registry(no_plugins=no_plugins)
    return _registry


@attrs.frozen
class PluginRow:
    """One engine as ``hpx plugins`` shows it."""

    engine: str
    distribution: str
    version: str
    model_formats: tuple[str, ...]
    backends: tuple[str, ...]
    summary: str


@attrs.frozen
class PluginReport:
    """Installed engines, and plugins that could not be used."""

    engines: tuple[PluginRow, ...]
    failures: tuple[PluginFailure, ...]
    conflicts: tuple[str, ...]


def list_plugins(reg: Registry | None = None) -> PluginReport:
    """What engines are installed, from which distributions."""
    reg = reg or registry()
    rows = tuple(
        PluginRow(
            engine=name,
            distribution=entry.plugin.distribution,
            version=entry.plugin.version,
            model_formats=entry.descriptor.model_formats,
            backends=entry.descriptor.backends,
            summary=entry.descriptor.summary,
        )
        for name, entry in sorted(reg.engines.items())
    )
    return PluginReport(rows, reg.failures, tuple(sorted(reg.conflicts)))


@attrs.frozen
class ValidatedConfig:
    """A profile config checked by the core and by the selected engine."""

    config: ProfileConfig
    document: ConfigDocument
    engine: EngineEntry
    engine_config: Any


def validate_config(
    file: Path | None, overrides: Overrides | None = None, reg: Registry | None = None
) -> ValidatedConfig:
    """Load, override and validate a config, including the engine's own section."""
    reg = reg or registry()
    config, document = load_config(file, overrides)
    engine = _select_engine(config, document, reg)
    config = _with_backend(config, document, engine)
    context = ConfigContext(config=config, document=document)
    engine_config = reg.engine_hook(engine.descriptor.name, "hpx_validate_config")(ctx=context)
    if engine_config is None:
        raise PluginError(
            f"engine {engine.descriptor.name!r} did not validate its config",
            f"report this to the maintainers of {engine.plugin.distribution}",
        )
    return ValidatedConfig(config, document, engine, engine_config)


def _select_engine(config: ProfileConfig, document: ConfigDocument, reg: Registry) -> EngineEntry:
    try:
        return reg.engine(config.engine.type)
    except PluginError as error:
        raise ConfigError(
            f"engine.type: {error.message}", error.hint, document.locate("engine.type")
        ) from None


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
