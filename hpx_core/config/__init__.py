"""Typed profile configuration: YAML + CLI overrides -> frozen :class:`ProfileConfig`."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from hpx_core.config.document import ConfigDocument
from hpx_core.config.schema import ProfileConfig

__all__ = ["ConfigDocument", "ConfigValue", "ProfileConfig", "load_config", "walk_values"]


@attrs.frozen
class ConfigValue:
    """One resolved leaf value and where it came from (for ``hpx config show``)."""

    path: str
    value: Any
    origin: str


def load_config(
    file: Path | None, overrides: Mapping[str, tuple[Any, str]] | None = None,
    *, pass_keys: Collection[str] = (),
) -> tuple[ProfileConfig, ConfigDocument]:
    """Read ``file`` (optional), apply ``overrides`` (dotted path -> (value, origin)), validate.

    Relative paths written in the file are relative to the file; those given on the command
    line are relative to the working directory. ``pass_keys`` are the keys of ``profiling``
    that installed passes own (:mod:`hpx_core.config.pass_keys`): left for them to structure.
    """
    document = ConfigDocument.load(file)
    for dotted, (value, origin) in (overrides or {}).items():
        document.override(dotted, value, origin)
    config = document.structure(ProfileConfig, without=[f"profiling.{k}" for k in pass_keys])
    return _anchor_paths(config, document), document


def walk_values(config: ProfileConfig, document: ConfigDocument) -> Iterator[ConfigValue]:
    """Every leaf of the resolved config with its origin, in declaration order."""
    yield from _walk(config, (), document)


def _walk(obj: Any, prefix: tuple[str, ...], document: ConfigDocument) -> Iterator[ConfigValue]:
    for field in attrs.fields(type(obj)):
        value = getattr(obj, field.name)
        path = (*prefix, field.name)
        if attrs.has(type(value)):
            yield from _walk(value, path, document)
        elif isinstance(value, dict) and value:
            for key, item in value.items():
                dotted = ".".join((*path, str(key)))
                yield ConfigValue(dotted, item, document.origin(dotted))
        else:
            dotted = ".".join(path)
            yield ConfigValue(dotted, value, document.origin(dotted))


def _anchor_paths(config: ProfileConfig, document: ConfigDocument) -> ProfileConfig:
    if document.file is None:
        return config
    base = document.file.parent

    def anchored(dotted: str, path: Path | None) -> Path | None:
        from_file = document.origin(dotted).startswith(str(document.file))
        if path is None or path.is_absolute() or not from_file:
            return path
        return base / path

    model = attrs.evolve(config.model, path=anchored("model.path", config.model.path))
    out_dir = anchored("output.dir", config.output.dir)
    output = attrs.evolve(config.output, dir=out_dir or config.output.dir)
    farm = attrs.evolve(config.farm, ssh_key=anchored("farm.ssh_key", config.farm.ssh_key))
    build = attrs.evolve(config.build, work_dir=anchored("build.work_dir", config.build.work_dir))
    return attrs.evolve(config, model=model, output=output, farm=farm, build=build)
