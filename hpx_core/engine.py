"""The values that cross the plugin contract.

Engines receive a context and return one of these frozen records; the core never reaches into a
plugin's internals. Everything here is public API for engine authors.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import attrs

from hpx_core.placement import PlannedBuffer

if TYPE_CHECKING:
    from hpx_core.config.document import ConfigDocument
    from hpx_core.config.schema import ProfileConfig


def _names(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


def _buffers(values: Iterable[PlannedBuffer]) -> tuple[PlannedBuffer, ...]:
    return tuple(values)


Provenance = Literal["qualified", "qualified-with-engine-override", "development-overrides"]


@attrs.frozen
class EngineDescriptor:
    """What an engine plugin offers: answered by ``hpx_engines()``."""

    name: str
    model_formats: tuple[str, ...] = attrs.field(converter=_names)
    config_class: type[Any]
    summary: str = ""
    backends: tuple[str, ...] = attrs.field(default=(), converter=_names)


@attrs.frozen
class ConfigContext:
    """Handed to ``hpx_validate_config``: the whole profile config and its YAML source."""

    config: ProfileConfig
    document: ConfigDocument

    @property
    def engine(self) -> str:
        return self.config.engine.type


T = TypeVar("T")


def context_engine(ctx: Any) -> str | None:
    """The engine a hook's context is for, or None (e.g. `hpx verify-kernels` on a bare ELF).

    Hooks that every plugin receives (``hpx_verify_symbols``) use it to answer only for their
    own engine.
    """
    engine = getattr(getattr(ctx, "config", None), "engine", None)
    return None if engine is None else str(engine.type)


def context_engine_config(ctx: Any, kind: type[T]) -> T:
    """The validated ``engine.config`` a hook's context carries, checked to be a ``kind``."""
    found = getattr(ctx, "engine_config", None)
    if found is None:
        found = ctx.validated.engine_config
    if not isinstance(found, kind):
        raise TypeError(f"the context's engine config is a {type(found).__name__}, not {kind}")
    return found


@attrs.frozen
class SourceRepo:
    """One repository an engine was built from, at the exact commit used."""

    name: str
    url: str
    commit: str
    path: Path
    license: str


def _source_repos(value: Iterable[SourceRepo]) -> tuple[SourceRepo, ...]:
    return tuple(value)


@attrs.frozen
class SourceSet:
    """Answer of ``hpx_materialize_sources``: where the engine's sources are, and how trusted."""

    repos: tuple[SourceRepo, ...] = attrs.field(converter=_source_repos)
    provenance: Provenance = "qualified"

    def path_of(self, name: str) -> Path:
        for repo in self.repos:
            if repo.name == name:
                return repo.path
        raise KeyError(name)


@attrs.frozen
class FirmwareContribution:
    """Answer of ``hpx_generate_firmware``: an engine's glue for the core harness.

    ``files`` are written into the generated project (relative path -> text). ``cmake`` is a
    fragment included after the core defines the ``hpx_app`` target; it adds the engine's
    libraries and links them into ``hpx_app``. ``sources`` are compiled into ``hpx_app``.
    ``buffers`` are the large buffers the glue defines (arena, weights): the core checks the
    plan fits the board before the build and finds each by its symbol in the linked ELF.
    """

    files: Mapping[str, str] = attrs.field(factory=dict)
    sources: tuple[str, ...] = attrs.field(default=(), converter=_names)
    include_dirs: tuple[str, ...] = attrs.field(default=(), converter=_names)
    defines: Mapping[str, str] = attrs.field(factory=dict)
    cmake: str = ""
    fingerprint_inputs: Mapping[str, str] = attrs.field(factory=dict)
    buffers: tuple[PlannedBuffer, ...] = attrs.field(default=(), converter=_buffers)


@attrs.frozen
class SymbolFinding:
    """One conclusion drawn from the linked ELF's symbols (answer of ``hpx_verify_symbols``)."""

    check: str
    passed: bool
    detail: str
    fatal: bool = True


@attrs.frozen
class LayerRecord:
    """One measured layer, named the way the engine names it (answer of ``hpx_parse_results``)."""

    index: int
    name: str
    op: str
    counters: Mapping[str, int] = attrs.field(factory=dict)
