"""What a plugin module implements, as protocols mypy checks a plugin against.

pluggy finds hooks by name at run time; these protocols let a type checker see the same
contract at a plugin's own desk. A plugin module states which it implements, at its end::

    if TYPE_CHECKING:
        from hpx_core import engine_protocol as contract
        from my_engine import plugin as this

        _engine: contract.Engine = this           # the hooks every engine implements
        _memory: contract.PlansMemory = this      # and each optional one it does

``mypy --strict`` then checks every implementation's parameters and answer against the hook
(a module is an implementation of a protocol when its functions have the protocol's methods'
signatures). The signatures here are those of :mod:`hpx_core.hookspecs`; a test keeps them
equal.
"""

from __future__ import annotations

from typing import Protocol

from attrs import AttrsInstance

from hpx_core.contract import (
    ConfigRequest,
    EngineDescriptor,
    ErrorRequest,
    Explanation,
    FirmwareContribution,
    FirmwareRequest,
    ManifestRequest,
    MatchManifest,
    MemoryNeeds,
    MemoryRequest,
    ModelCheckRequest,
    ModelNote,
    ModelRefusal,
    ModelRequest,
    NotesRequest,
    ResultExtras,
    ResultsRequest,
    SourceSet,
    SourcesRequest,
    SymbolFinding,
    SymbolsRequest,
)
from hpx_core.models.info import ModelInfo


class Engine(Protocol):
    """The hooks every engine implements: describe itself, validate its config, generate its
    glue, say what linked, and add its facts (and host outputs) to the bundle."""

    def hpx_engines(self) -> list[EngineDescriptor]: ...

    def hpx_validate_config(self, request: ConfigRequest) -> AttrsInstance: ...

    def hpx_generate_firmware(self, request: FirmwareRequest) -> FirmwareContribution: ...

    def hpx_verify_symbols(self, request: SymbolsRequest) -> list[SymbolFinding]: ...

    def hpx_result_extras(self, request: ResultsRequest) -> ResultExtras: ...


class ReadsItsOwnFormat(Protocol):
    """A plugin that reads a model format (its engine's own)."""

    def hpx_read_model(self, request: ModelRequest) -> ModelInfo | None: ...


class DescribesModels(Protocol):
    """An engine with words of its own for ``hpx analyze``."""

    def hpx_describe_model(self, request: NotesRequest) -> list[ModelNote]: ...


class ChecksModels(Protocol):
    """An engine that refuses, before any fetch, a model its interpreter cannot prepare."""

    def hpx_check_model(self, request: ModelCheckRequest) -> ModelRefusal | None: ...


class MaterializesSources(Protocol):
    """An engine that brings its sources itself (overrides, version checks)."""

    def hpx_materialize_sources(self, request: SourcesRequest) -> SourceSet: ...


class PlansMemory(Protocol):
    """An engine that declares the buffers the memory plan places."""

    def hpx_plan_memory(self, request: MemoryRequest) -> MemoryNeeds: ...


class ExplainsErrors(Protocol):
    """An engine whose glue reports error codes it can put in words."""

    def hpx_explain_error(self, request: ErrorRequest) -> Explanation | None: ...


class MatchesManifests(Protocol):
    """An engine whose exporter writes a manifest that pairs two programs' layers."""

    def hpx_match_manifest(self, request: ManifestRequest) -> MatchManifest | None: ...


PROTOCOLS = (Engine, ReadsItsOwnFormat, DescribesModels, ChecksModels, MaterializesSources,
             PlansMemory, ExplainsErrors, MatchesManifests)
