"""Validate a profile config end to end: the core's sections and the engine's own section."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.config import ConfigDocument, ProfileConfig, load_config
from hpx_core.engine import ConfigContext
from hpx_core.errors import ConfigError, PluginError
from hpx_core.plugins import EngineEntry, Registry, default_registry
from hpx_core.suggest import did_you_mean

Overrides = Mapping[str, tuple[Any, str]]
"""Dotted config path -> (value, origin such as ``"--board"``)."""


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
    reg = reg or default_registry()
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
