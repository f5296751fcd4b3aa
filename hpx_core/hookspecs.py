# mypy: disable-error-code="empty-body"
"""The hpx plugin contract: every hook an engine plugin may implement.

An engine plugin is a module registered under the ``hpx.engines`` entry-point group; it
implements some of these hooks with :data:`hpx_core.hookimpl`. Each hook takes one request and
returns one answer, both frozen records of :mod:`hpx_core.contract`. The core calls the
engine-specific hooks only on the plugin that declared the selected engine, so an
implementation never checks which engine is meant; ``hpx_engines`` and ``hpx_verify_symbols``
go to every plugin.

A hook either answers or raises :class:`hpx_core.errors.HpxError` (usually a
:class:`~hpx_core.errors.ConfigError` or :class:`~hpx_core.errors.SourceError`) whose hint the
user can act on. ``docs/writing-an-engine.md`` walks through a whole engine; every field of every
request and answer is in ``docs/engine-reference.md`` (a test keeps the two equal).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

from hpx_core.project import PROJECT_NAME

if TYPE_CHECKING:
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

hookspec = pluggy.HookspecMarker(PROJECT_NAME)


@hookspec
def hpx_engines() -> list[EngineDescriptor]:
    """Describe the engines this plugin provides.

    Called once at start-up on every plugin. A descriptor names the engine (``engine.type``),
    the model formats it reads, its backends (the first is the default), its ``engine.config``
    class and its pinned sources (:func:`hpx_core.sources.load_pins` reads them from the
    plugin's package data). Two plugins declaring one engine name, or one repository name at
    different commits, is an error: hpx refuses the later one and says so in ``hpx plugins``.
    """


@hookspec(firstresult=True)
def hpx_validate_config(request: ConfigRequest) -> AttrsInstance:
    """Turn the raw ``engine.config`` section into the engine's typed, frozen config.

    Use ``request.section.structure(MyConfig)`` for the structural part: it refuses unknown
    keys with ``file:line:col`` and a did-you-mean, and names the path and type of a wrongly
    typed value. Check cross-field rules here and raise them with
    ``request.section.error("key", message, hint)`` so they point at the YAML line (or name the
    ``--engine-config`` flag that set the value). Return an instance of the descriptor's
    ``config_class``; later requests carry it as ``request.engine.config`` (read it with
    ``request.engine.config_as(MyConfig)``).
    """


@hookspec(firstresult=True)
def hpx_read_model(request: ModelRequest) -> ModelInfo | None:
    """Read a model file of a format the plugin reads (the core reads only ``.tflite``).

    Asked of every plugin until one answers (a run's engine first, the core's own reader last).
    Answer the :class:`~hpx_core.models.ModelInfo` (format, layers as ``operators``, inputs
    and outputs, SHA-256 from the request), or ``None`` when the file is not yours: tell by its
    content, cheaply. Raise :class:`~hpx_core.errors.ModelError` for a file that is yours but
    broken.
    """


@hookspec
def hpx_describe_model(request: NotesRequest) -> list[ModelNote]:
    """Say what ``hpx analyze`` should show about a model in the engine's own words.

    Called on every plugin; answer ``[]`` for a model of a format the engine does not read.
    Typical notes: which kernel libraries the model's operators need, export-time facts kept
    beside the model. Read nothing slow here: ``hpx analyze`` runs it for every model.
    """


@hookspec(firstresult=True)
def hpx_check_model(request: ModelCheckRequest) -> ModelRefusal | None:
    """Say whether the engine can prepare the model, before anything is fetched.

    Optional; called in the model analysis stage (so by ``hpx config validate`` too) on the
    selected engine. Answer a :class:`~hpx_core.contract.ModelRefusal` for a model the engine's
    interpreter would refuse (an operator's quantization its kernel's prepare step rejects),
    naming the operator and what to change; ``None`` when nothing is known to fail. The core
    raises it as a :class:`~hpx_core.errors.ModelError` naming the model file. Check only what
    is cheap to read from the model: this runs on every validation.
    """


@hookspec(firstresult=True)
def hpx_materialize_sources(request: SourcesRequest) -> SourceSet:
    """Bring the engine's sources to disk at their pinned commits and say how trusted they are.

    Optional: without it the core materializes the pins the engine declared for the chosen
    backend. Implement it to honour overrides (a ``source_path`` in the engine's config) or to
    check versions: call :func:`hpx_core.sources.materialize` with ``request.catalog``. The
    license gate has already run; never fetch anything that is not declared.
    """


@hookspec(firstresult=True)
def hpx_plan_memory(request: MemoryRequest) -> MemoryNeeds:
    """Declare the large buffers the glue will define and how much code the engine links.

    Optional; called after the license check, before any source is fetched. Answer a
    :class:`~hpx_core.contract.BufferNeed` per buffer (the model, arenas, I/O: sizes from the
    model and the config, the config key that places it and the use word the user gave there)
    and a :class:`~hpx_core.contract.CodeSize`. The core places every buffer in a region of the
    board's memory map (the user's choice, else the first preference that leaves room), refuses
    a plan that cannot fit, and hands the plan back as ``FirmwareRequest.layout``: put
    ``layout.attribute(name)`` on each buffer's definition. Without this hook nothing is
    placed and only the linker finds what does not fit.
    """


@hookspec(firstresult=True)
def hpx_generate_firmware(request: FirmwareRequest) -> FirmwareContribution:
    """Return the engine's glue for the core firmware harness.

    The glue implements the harness's engine interface (``hpx_engine.h``: load the model,
    describe layers, refill inputs, run one inference, report outputs) and adds the engine's
    libraries through a CMake fragment. The harness, the wire protocol and the counter backends
    belong to the core. Put what ``hpx_result_extras`` will need into ``facts``. Compile
    ``request.model`` (a corrected copy when the model lacked one of the descriptor's
    ``model_fields``); run an in-process tool inside
    ``hpx_core.enginelib.tool_output_to(request.log, ...)`` so nothing it prints reaches the
    user's terminal, and raise its failure as one HpxError whose hint names the log.
    """


@hookspec
def hpx_verify_symbols(request: SymbolsRequest) -> list[SymbolFinding]:
    """Inspect the linked ELF's symbols and report what linked.

    Called on every plugin after a build (and by ``hpx verify-kernels``); answer ``[]`` for
    another engine's ELF (``request.engine``). Findings such as "the CMSIS-NN convolution
    linked"; a failed finding with ``fatal=True`` stops the run before anything is flashed.
    """


@hookspec(firstresult=True)
def hpx_explain_error(request: ErrorRequest) -> Explanation | None:
    """Say in the engine's words what an error its glue reported means.

    Called when the firmware sent an ERROR record with an engine-defined ``code`` (the return
    value of a ``hpx_engine_*`` function) during ``stage``. Answer ``None`` to let the core
    report the bare code. The run still fails; the bundle keeps the capture.
    """


@hookspec(firstresult=True)
def hpx_result_extras(request: ResultsRequest) -> ResultExtras:
    """Add the engine's own facts to the result bundle's ``extra`` section.

    Typical answers: which input was fed, the arena actually used, the output tensors compared
    with a host reference; files the firmware sent (``ResultExtras.files``). Only measured or
    recorded facts belong here.
    """


@hookspec(firstresult=True)
def hpx_match_manifest(request: ManifestRequest) -> MatchManifest | None:
    """Translate the engine's own export manifest into a match manifest for ``hpx compare``.

    Called on the plugin of the base bundle's engine with the file the user passed as
    ``--manifest``; answer ``None`` when it is not one of the engine's. Otherwise the pairs of
    layers and the regions (layers compared as one sum) for the two programs with these
    SHA-256s (of ``request.model`` when given).
    """
