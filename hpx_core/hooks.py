"""The contract as the core calls it: one typed method per hook, every answer checked.

pluggy calls hooks by name and hands back whatever a plugin returned, so on its own nothing
tells a caller (or mypy) what an answer is. :class:`EngineHooks` is the one place the core
calls hooks through: each method takes the hook's request record, reaches only the plugin that
declared the engine (``hpx_engines``, ``hpx_verify_symbols`` and ``hpx_describe_model`` go to
every plugin), and checks the answer's type, so a plugin that answers the wrong record fails
with one error naming the plugin and the hook instead of somewhere later. A plugin's own
implementations are checked by mypy against :mod:`hpx_core.engine_protocol`.
"""

from __future__ import annotations

from typing import Any, TypeVar

import attrs
from attrs import AttrsInstance

from hpx_core.contract import (
    ConfigRequest,
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
from hpx_core.errors import PluginError
from hpx_core.models.info import ModelInfo
from hpx_core.plugins import Registry

T = TypeVar("T")


class EngineHooks:
    """Typed calls of every hook of the contract (``hpx_core.hookspecs``)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def validate_config(self, engine: str, request: ConfigRequest) -> AttrsInstance:
        answer = self._call(engine, "hpx_validate_config", request)
        kind = self.registry.engine(engine).descriptor.config_class
        if answer is None:
            raise self._absent(engine, "hpx_validate_config")
        if not isinstance(answer, kind):
            raise self._wrong(engine, "hpx_validate_config", answer, kind)
        return answer

    def read_model(self, request: ModelRequest, engine: str | None = None) -> ModelInfo | None:
        """The engine's reading of a file of its own format (any plugin's without ``engine``)."""
        if engine is not None:
            return self._checked(engine, "hpx_read_model", request, ModelInfo)
        answer = self.registry.manager.hook.hpx_read_model(request=request)
        return _instance(answer, ModelInfo, "a plugin", "hpx_read_model")

    def describe_model(self, request: NotesRequest) -> dict[str, list[ModelNote]]:
        """Every plugin's notes on ``request.model``, by the engines that plugin provides."""
        found: dict[str, list[ModelNote]] = {}
        for plugin, answer in self._each("hpx_describe_model", request):
            notes = [_instance(n, ModelNote, plugin, "hpx_describe_model") for n in answer or ()]
            if notes:
                found[plugin] = [n for n in notes if n is not None]
        return found

    def check_model(self, engine: str, request: ModelCheckRequest) -> ModelRefusal | None:
        return self._checked(engine, "hpx_check_model", request, ModelRefusal)

    def materialize_sources(self, engine: str, request: SourcesRequest) -> SourceSet | None:
        return self._checked(engine, "hpx_materialize_sources", request, SourceSet)

    def plan_memory(self, engine: str, request: MemoryRequest) -> MemoryNeeds | None:
        return self._checked(engine, "hpx_plan_memory", request, MemoryNeeds)

    def generate_firmware(self, engine: str, request: FirmwareRequest) -> FirmwareContribution:
        answer = self._checked(engine, "hpx_generate_firmware", request, FirmwareContribution)
        if answer is None:
            raise self._absent(engine, "hpx_generate_firmware")
        if answer.facts is not None and not attrs.has(type(answer.facts)):
            raise self._wrong(engine, "hpx_generate_firmware's facts", answer.facts,
                              AttrsInstance)
        return answer

    def verify_symbols(self, request: SymbolsRequest) -> list[SymbolFinding]:
        findings: list[SymbolFinding] = []
        for plugin, answer in self._each("hpx_verify_symbols", request):
            findings += [f for f in (_instance(a, SymbolFinding, plugin, "hpx_verify_symbols")
                                     for a in answer or ()) if f is not None]
        return findings

    def explain_error(self, engine: str, request: ErrorRequest) -> Explanation | None:
        return self._checked(engine, "hpx_explain_error", request, Explanation)

    def result_extras(self, engine: str, request: ResultsRequest) -> ResultExtras | None:
        return self._checked(engine, "hpx_result_extras", request, ResultExtras)

    def match_manifest(self, engine: str, request: ManifestRequest) -> MatchManifest | None:
        return self._checked(engine, "hpx_match_manifest", request, MatchManifest)

    def _call(self, engine: str, hook: str, request: object) -> Any:
        owner = self.registry.engine(engine).module
        others = [p for p in self.registry.manager.get_plugins() if p is not owner]
        caller = self.registry.manager.subset_hook_caller(hook, remove_plugins=others)
        return caller(request=request)

    def _checked(self, engine: str, hook: str, request: object, kind: type[T]) -> T | None:
        return _instance(self._call(engine, hook, request), kind, self._name(engine), hook)

    def _each(self, hook: str, request: object) -> list[tuple[str, Any]]:
        """(plugin name, answer) of every plugin implementing ``hook``."""
        answers = []
        for impl in getattr(self.registry.manager.hook, hook).get_hookimpls():
            answers.append((impl.plugin_name, impl.function(request=request)))
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


def _instance(answer: object, kind: type[T], who: str, hook: str) -> T | None:
    if answer is None or isinstance(answer, kind):
        return answer
    raise _wrong_answer(who, hook, answer, kind)


def _wrong_answer(who: str, hook: str, answer: object, kind: type) -> PluginError:
    return PluginError(f"{who} answered {hook} with a {type(answer).__name__}, not a "
                       f"{kind.__name__}",
                       "the plugin does not follow the contract (docs/writing-an-engine.md); "
                       "update or disable it (HPX_DISABLE_PLUGINS)")
