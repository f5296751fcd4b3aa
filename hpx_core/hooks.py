"""The contract as the core calls it: one typed method per hook, every answer checked.

pluggy calls hooks by name and hands back whatever a plugin returned, so on its own nothing
tells a caller (or mypy) what an answer is. :class:`EngineHooks` is the one place the core
calls hooks through. Each method names its hook by the protocol method of
:mod:`hpx_core.engine_protocol`, which gives mypy the answer's type; :data:`HOOKS
<hpx_core.engine_protocol.HOOKS>` says which plugins to ask and which record an answer must be,
so a plugin that answers the wrong record fails with one error naming the plugin and the hook
instead of somewhere later. A plugin's own implementations are checked by mypy against the
same protocols.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import attrs
from attrs import AttrsInstance

from hpx_core.contract import (
    ConfigRequest,
    ErrorRequest,
    Explanation,
    FirmwareContribution,
    FirmwareRequest,
    HostOutputs,
    HostOutputsRequest,
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
from hpx_core.engine_protocol import (
    HOOKS,
    ChecksModels,
    DescribesModels,
    Engine,
    ExplainsErrors,
    MatchesManifests,
    MaterializesSources,
    PlansMemory,
    Reach,
    ReadsItsOwnFormat,
    RunsHostReference,
)
from hpx_core.errors import PluginError
from hpx_core.models.info import ModelInfo
from hpx_core.plugins import Registry

T = TypeVar("T")


class EngineHooks:
    """Typed calls of every hook of the contract (``hpx_core.engine_protocol``)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def validate_config(self, engine: str, request: ConfigRequest) -> AttrsInstance:
        _, answer = self._answer(Engine.hpx_validate_config, request, engine)
        kind = self.registry.engine(engine).descriptor.config_class
        if answer is None:
            raise self._absent(engine, "hpx_validate_config")
        if not isinstance(answer, kind):
            raise self._wrong(engine, "hpx_validate_config", answer, kind)
        return answer

    def read_model(self, request: ModelRequest, engine: str | None = None) -> ModelInfo | None:
        """The first reading of the file, as the table's reach says: ``engine``'s plugin first
        (when a run names one), then each plugin until one answers."""
        if engine is not None:
            first = self._ask(ReadsItsOwnFormat.hpx_read_model, request, engine)
            if first is not None:
                return first
        return self._ask(ReadsItsOwnFormat.hpx_read_model, request, None)

    def describe_model(self, request: NotesRequest) -> dict[str, list[ModelNote]]:
        """Every plugin's notes on ``request.model``, by the engines that plugin provides."""
        answers = self._each(DescribesModels.hpx_describe_model, request)
        return {plugin: notes for plugin, notes in answers if notes}

    def check_model(self, engine: str, request: ModelCheckRequest) -> ModelRefusal | None:
        return self._ask(ChecksModels.hpx_check_model, request, engine)

    def materialize_sources(self, engine: str, request: SourcesRequest) -> SourceSet | None:
        return self._ask(MaterializesSources.hpx_materialize_sources, request, engine)

    def plan_memory(self, engine: str, request: MemoryRequest) -> MemoryNeeds | None:
        return self._ask(PlansMemory.hpx_plan_memory, request, engine)

    def generate_firmware(self, engine: str, request: FirmwareRequest) -> FirmwareContribution:
        answer = self._ask(Engine.hpx_generate_firmware, request, engine)
        if answer is None:
            raise self._absent(engine, "hpx_generate_firmware")
        if answer.facts is not None and not attrs.has(type(answer.facts)):
            raise self._wrong(engine, "hpx_generate_firmware's facts", answer.facts,
                              AttrsInstance)
        return answer

    def verify_symbols(self, request: SymbolsRequest) -> list[SymbolFinding]:
        answers = self._each(Engine.hpx_verify_symbols, request)
        return [finding for _, findings in answers for finding in findings]

    def explain_error(self, engine: str, request: ErrorRequest) -> Explanation | None:
        return self._ask(ExplainsErrors.hpx_explain_error, request, engine)

    def result_extras(self, engine: str, request: ResultsRequest) -> ResultExtras | None:
        return self._ask(Engine.hpx_result_extras, request, engine)

    def host_outputs(self, engine: str, request: HostOutputsRequest) -> HostOutputs | None:
        return self._ask(RunsHostReference.hpx_host_outputs, request, engine)

    def match_manifest(self, engine: str, request: ManifestRequest) -> MatchManifest | None:
        return self._ask(MatchesManifests.hpx_match_manifest, request, engine)

    def _ask(self, method: Callable[..., T], request: object, engine: str | None) -> T | None:
        """The one answer of a hook that reaches the engine, checked against the table."""
        who, answer = self._answer(method, request, engine)
        hook = HOOKS[method.__name__]
        if answer is not None and not isinstance(answer, hook.record):
            raise _wrong_answer(who, hook.name, answer, hook.record)
        return cast("T | None", answer)

    def _answer(self, method: Callable[..., object], request: object,
                engine: str | None) -> tuple[str, Any]:
        """(who answered, the raw answer): the engine's plugin, or any plugin if the table
        lets the hook go without an engine."""
        hook = HOOKS[method.__name__]
        if engine is None:
            if hook.reach is not Reach.ENGINE_ELSE_FIRST:
                raise TypeError(f"{hook.name} reaches an engine; name one")
            return "a plugin", getattr(self.registry.manager.hook, hook.name)(request=request)
        if hook.reach is Reach.EVERY_PLUGIN:
            raise TypeError(f"{hook.name} reaches every plugin, not one engine")
        owner = self.registry.engine(engine).module
        others = [p for p in self.registry.manager.get_plugins() if p is not owner]
        caller = self.registry.manager.subset_hook_caller(hook.name, remove_plugins=others)
        return self._name(engine), caller(request=request)

    def _each(self, method: Callable[..., list[T]], request: object) -> list[tuple[str, list[T]]]:
        """(plugin name, its checked answer) of every plugin implementing a hook that reaches
        every plugin."""
        hook = HOOKS[method.__name__]
        if hook.reach is not Reach.EVERY_PLUGIN:
            raise TypeError(f"{hook.name} reaches one engine, not every plugin")
        answers = []
        for impl in getattr(self.registry.manager.hook, hook.name).get_hookimpls():
            items = impl.function(request=request) or ()
            for item in items:
                if not isinstance(item, hook.record):
                    raise _wrong_answer(impl.plugin_name, hook.name, item, hook.record)
            answers.append((impl.plugin_name, list(items)))
        return answers

    def _name(self, engine: str) -> str:
        return f"the plugin of engine {engine!r} ({self.registry.engine(engine).plugin.name})"

    def _absent(self, engine: str, hook: str) -> PluginError:
        entry = self.registry.engine(engine)
        return PluginError(f"engine {engine!r} does not implement {hook}",
                           f"this engine cannot run the pipeline yet; ask the maintainers of "
                           f"{entry.plugin.distribution}")

    def _wrong(self, engine: str, hook: str, answer: object, kind: type) -> PluginError:
        return _wrong_answer(self._name(engine), hook, answer, kind)


def _wrong_answer(who: str, hook: str, answer: object, kind: type) -> PluginError:
    return PluginError(f"{who} answered {hook} with a {type(answer).__name__}, not a "
                       f"{kind.__name__}",
                       "the plugin does not follow the contract (docs/writing-an-engine.md); "
                       "update or disable it (HPX_DISABLE_PLUGINS)")
