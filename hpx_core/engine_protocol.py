"""Every hook of the plugin contract, written once: its signature and docstring in a protocol,
whom the core asks in :data:`HOOKS`.

An engine plugin is a module registered under the ``hpx.engines`` entry-point group; it
implements some of these hooks with :data:`hpx_core.sdk.hookimpl`. Each hook takes one request and
returns one answer, both frozen records of :mod:`hpx_core.contract`. A hook either answers or
raises :class:`hpx_core.errors.HpxError` (usually a :class:`~hpx_core.errors.ConfigError` or
:class:`~hpx_core.errors.SourceError`) whose hint the user can act on.
``docs/writing-an-engine.md`` walks through a whole engine; ``docs/engine-reference.md`` lists
every hook and every field of every record (a test keeps it equal to this module).

Everything else is made from here: the pluggy specifications (:mod:`hpx_core.hookspecs`), the
core's typed calls (:mod:`hpx_core.hooks`, which reach the plugins :data:`HOOKS` says). The
protocols let mypy check a plugin at its author's desk; a plugin module states which it
implements, at its end::

    if TYPE_CHECKING:
        from hpx_core.sdk import engine_protocol as contract
        from my_engine import plugin as this

        _engine: contract.Engine = this           # the hooks every engine implements
        _memory: contract.PlansMemory = this      # and each optional one it does

``mypy --strict`` then checks every implementation's parameter names and answer type against
the hook. ``request`` is keyword-only here because pluggy passes it by name, and because mypy
checks the name of a keyword-only parameter only: a plugin's ``def hook(req: ...)`` fails it.
"""

from __future__ import annotations

import enum
import inspect
import typing
from collections.abc import Callable, Mapping
from types import UnionType
from typing import Protocol

import attrs
from attrs import AttrsInstance

from hpx_core.contract import (
    ConfigRequest,
    EngineDescriptor,
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
from hpx_core.models.info import ModelInfo


class Engine(Protocol):
    """The hooks every engine implements: describe itself, validate its config, generate its
    glue, say what linked, and add its facts (and host outputs) to the bundle."""

    def hpx_engines(self) -> list[EngineDescriptor]:
        """Describe the engines this plugin provides.

        Called once at start-up on every plugin. A descriptor names the engine
        (``engine.type``), the model formats it reads, its backends (the first is the default),
        its ``engine.config`` class and its pinned sources (:func:`hpx_core.sources.load_pins`
        reads them from the plugin's package data). Two plugins declaring one engine name, or
        one repository name at different commits, is an error: hpx refuses the later one and
        says so in ``hpx plugins``.
        """

    def hpx_validate_config(self, *, request: ConfigRequest) -> AttrsInstance:
        """Turn the raw ``engine.config`` section into the engine's typed, frozen config.

        Use ``request.section.structure(MyConfig)`` for the structural part: it refuses unknown
        keys with ``file:line:col`` and a did-you-mean, and names the path and type of a
        wrongly typed value. Check cross-field rules here and raise them with
        ``request.section.error("key", message, hint)`` so they point at the YAML line (or name
        the ``--engine-config`` flag that set the value). Return an instance of the
        descriptor's ``config_class``; later requests carry it as ``request.engine.config``
        (read it with ``request.engine.config_as(MyConfig)``).
        """

    def hpx_generate_firmware(self, *, request: FirmwareRequest) -> FirmwareContribution:
        """Return the engine's glue for the core firmware harness.

        The glue implements the harness's engine interface (``hpx_engine.h``: load the model,
        describe layers, refill inputs, run one inference, report outputs) and adds the
        engine's libraries through a CMake fragment. The harness, the wire protocol and the
        counter backends belong to the core. Put what ``hpx_result_extras`` will need into
        ``facts``. Compile ``request.model`` (a corrected copy when the model lacked one of the
        descriptor's ``model_fields``); run an in-process tool inside
        ``hpx_core.enginelib.tool_output_to(request.log, ...)`` so nothing it prints reaches
        the user's terminal, and raise its failure as one HpxError whose hint names the log.
        """

    def hpx_verify_symbols(self, *, request: SymbolsRequest) -> list[SymbolFinding]:
        """Inspect the linked ELF's symbols and report what linked.

        Called on every plugin after a build (and by ``hpx verify-kernels``); answer ``[]`` for
        another engine's ELF (``request.engine``). Findings such as "the CMSIS-NN convolution
        linked"; a failed finding with ``fatal=True`` stops the run before anything is flashed.
        """

    def hpx_result_extras(self, *, request: ResultsRequest) -> ResultExtras:
        """Add the engine's own facts to the result bundle's ``extra`` section.

        Typical answers: which input was fed, the arena actually used, the output tensors
        compared with a host reference; files the firmware sent (``ResultExtras.files``). Only
        measured or recorded facts belong here.
        """


class ReadsItsOwnFormat(Protocol):
    """A plugin that reads a model format (its engine's own)."""

    def hpx_read_model(self, *, request: ModelRequest) -> ModelInfo | None:
        """Read a model file of a format the plugin reads (the core reads only ``.tflite``).

        Called on the run's engine's plugin first, then on each plugin until one answers (the
        core's own ``.tflite`` reader last). Answer the :class:`~hpx_core.models.ModelInfo`
        (format, layers as ``operators``, inputs and outputs, SHA-256 from the request), or
        ``None`` when the file is not yours: tell by its content, cheaply. Raise
        :class:`~hpx_core.errors.ModelError` for a file that is yours but broken.
        """


class DescribesModels(Protocol):
    """An engine with words of its own for ``hpx analyze``."""

    def hpx_describe_model(self, *, request: NotesRequest) -> list[ModelNote]:
        """Say what ``hpx analyze`` should show about a model in the engine's own words.

        Called on every plugin; answer ``[]`` for a model of a format the engine does not read.
        Typical notes: which kernel libraries the model's operators need, export-time facts
        kept beside the model. Read nothing slow here: ``hpx analyze`` runs it for every model.
        """


class ChecksModels(Protocol):
    """An engine that refuses, before any fetch, a model its interpreter cannot prepare."""

    def hpx_check_model(self, *, request: ModelCheckRequest) -> ModelRefusal | None:
        """Say whether the engine can prepare the model, before anything is fetched.

        Called in the model analysis stage (so by ``hpx config validate`` too). Answer a
        :class:`~hpx_core.contract.ModelRefusal` for a model the engine's interpreter would
        refuse (an operator's quantization its kernel's prepare step rejects), naming the
        operator and what to change; ``None`` when nothing is known to fail. The core raises it
        as a :class:`~hpx_core.errors.ModelError` naming the model file. Check only what is
        cheap to read from the model: this runs on every validation.
        """


class MaterializesSources(Protocol):
    """An engine that brings its sources itself (overrides, version checks)."""

    def hpx_materialize_sources(self, *, request: SourcesRequest) -> SourceSet:
        """Bring the engine's sources to disk at their pinned commits and say how trusted.

        Without it the core materializes the pins the engine declared for the chosen backend.
        Implement it to honour overrides (a ``source_path`` in the engine's config) or to check
        versions: call :func:`hpx_core.sources.materialize` with ``request.catalog``. The
        license gate has already run; never fetch anything that is not declared.
        """


class PlansMemory(Protocol):
    """An engine that declares the buffers the memory plan places."""

    def hpx_plan_memory(self, *, request: MemoryRequest) -> MemoryNeeds:
        """Declare the large buffers the glue will define and how much code the engine links.

        Called after the license check, before any source is fetched. Answer a
        :class:`~hpx_core.contract.BufferNeed` per buffer (the model, arenas, I/O: sizes from
        the model and the config, the config key that places it and the use word the user gave
        there) and a :class:`~hpx_core.contract.CodeSize`. The core places every buffer in a
        region of the board's memory map (the user's choice, else the first preference that
        leaves room), refuses a plan that cannot fit, and hands the plan back as
        ``FirmwareRequest.layout``: put ``layout.attribute(name)`` on each buffer's definition.
        Without this hook nothing is placed and only the linker finds what does not fit.
        """


class RunsHostReference(Protocol):
    """An engine whose host reference runs any input, so a data set can be validated."""

    def hpx_host_outputs(self, *, request: HostOutputsRequest) -> HostOutputs:
        """Run each sample through the engine's host reference (``hpx validate``).

        Called once per batch of samples (a few hundred at most, so memory stays bounded),
        after the firmware was built. Answer every output's bytes per sample, as the device
        sends them: the core compares them with what the device computed for the same bytes.
        Reuse one interpreter across the batch; the samples' inputs are already in the
        model's types (the core quantized float data with the model's own parameters).
        Without this hook the engine cannot be validated, and ``hpx validate`` says so.
        """


class ExplainsErrors(Protocol):
    """An engine whose glue reports error codes it can put in words."""

    def hpx_explain_error(self, *, request: ErrorRequest) -> Explanation | None:
        """Say in the engine's words what an error its glue reported means.

        Called when the firmware sent an ERROR record with an engine-defined ``code`` (the
        return value of a ``hpx_engine_*`` function) during ``stage``. Answer ``None`` to let
        the core report the bare code. The run still fails; the bundle keeps the capture.
        """


class MatchesManifests(Protocol):
    """An engine whose exporter writes a manifest that pairs two programs' layers."""

    def hpx_match_manifest(self, *, request: ManifestRequest) -> MatchManifest | None:
        """Translate the engine's own export manifest into a match manifest for ``hpx compare``.

        Called on the plugin of the base bundle's engine with the file the user passed as
        ``--manifest``; answer ``None`` when it is not one of the engine's. Otherwise the pairs
        of layers and the regions (layers compared as one sum) for the two programs with these
        SHA-256s (of ``request.model`` when given).
        """


PROTOCOLS = (Engine, ReadsItsOwnFormat, DescribesModels, ChecksModels, MaterializesSources,
             PlansMemory, ExplainsErrors, RunsHostReference, MatchesManifests)


class Reach(enum.Enum):
    """Which plugins the core asks (the value is how docs/engine-reference.md says it)."""

    ENGINE = "engine"  # the plugin that declared the selected engine, for its one answer
    EVERY_PLUGIN = "every plugin"  # each plugin, every answer kept
    ENGINE_ELSE_FIRST = "engine first, then each plugin until one answers"


@attrs.frozen
class Hook:
    """One hook: its protocol method (signature and docstring) and whom the core asks."""

    method: Callable[..., object]
    reach: Reach

    @property
    def name(self) -> str:
        return self.method.__name__

    @property
    def protocol(self) -> type:
        return next(p for p in PROTOCOLS if vars(p).get(self.name) is self.method)

    @property
    def optional(self) -> bool:
        return self.protocol is not Engine

    @property
    def firstresult(self) -> bool:
        """pluggy stops at the first answer that is not None, unless every answer is kept."""
        return self.reach is not Reach.EVERY_PLUGIN

    @property
    def doc(self) -> str:
        return inspect.getdoc(self.method) or ""

    @property
    def parameters(self) -> tuple[str, ...]:
        """What pluggy passes (by name): ``("request",)``, or nothing for ``hpx_engines``."""
        return tuple(inspect.signature(self.method).parameters)[1:]

    @property
    def request(self) -> type | None:
        hint = typing.get_type_hints(self.method).get("request")
        return hint if isinstance(hint, type) else None

    @property
    def answer(self) -> str:
        """The answer's type as written (``ModelInfo | None``)."""
        return str(self.method.__annotations__["return"])

    @property
    def record(self) -> type:
        """The class an answer (or each item of a list answer) must be an instance of."""
        hint = typing.get_type_hints(self.method)["return"]
        if isinstance(hint, UnionType):
            (hint,) = (arg for arg in typing.get_args(hint) if arg is not type(None))
        if typing.get_origin(hint) is list:
            (hint,) = typing.get_args(hint)
        assert isinstance(hint, type), self.name
        return hint


def _table(*hooks: Hook) -> Mapping[str, Hook]:
    return {hook.name: hook for hook in hooks}


HOOKS = _table(  # in the order a run calls them
    Hook(Engine.hpx_engines, Reach.EVERY_PLUGIN),
    Hook(Engine.hpx_validate_config, Reach.ENGINE),
    Hook(ReadsItsOwnFormat.hpx_read_model, Reach.ENGINE_ELSE_FIRST),
    Hook(DescribesModels.hpx_describe_model, Reach.EVERY_PLUGIN),
    Hook(ChecksModels.hpx_check_model, Reach.ENGINE),
    Hook(PlansMemory.hpx_plan_memory, Reach.ENGINE),
    Hook(MaterializesSources.hpx_materialize_sources, Reach.ENGINE),
    Hook(Engine.hpx_generate_firmware, Reach.ENGINE),
    Hook(Engine.hpx_verify_symbols, Reach.EVERY_PLUGIN),
    Hook(ExplainsErrors.hpx_explain_error, Reach.ENGINE),
    Hook(Engine.hpx_result_extras, Reach.ENGINE),
    Hook(RunsHostReference.hpx_host_outputs, Reach.ENGINE),
    Hook(MatchesManifests.hpx_match_manifest, Reach.ENGINE),
)
"""Every hook by name: the one table the specs, the core's calls and the docs' tests read."""
