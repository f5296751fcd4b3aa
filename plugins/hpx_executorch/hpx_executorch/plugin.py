"""Hook implementations of the ``executorch`` engine: each adapts a request to the typed
functions of :mod:`hpx_executorch.engine`.

Every hpx command loads this module, whatever engine it runs: it imports only the engine's
identity and config, and each hook imports the machinery it adapts when it is called.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hpx_core.sdk import (
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
    ModelNote,
    ModelRequest,
    NotesRequest,
    ResultExtras,
    ResultsRequest,
    SourceSet,
    SourcesRequest,
    SymbolFinding,
    SymbolsRequest,
    engines_hook,
    hookimpl,
)
from hpx_core.sdk.models import ModelInfo
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.identity import BACKENDS, ENGINE, PINS

_PROGRAM = re.compile(rb"ET\d\d")  # a .pte's file identifier (bytes 4..8), of any version

hpx_engines = engines_hook(EngineDescriptor(
    name=ENGINE,
    model_formats=("pte",),
    config_class=ExecutorchConfig,
    library_options=("source_path", "portable_ops", "ns_ops", "cmsis_nn_path",
                     "cmsis_nn_ref", "etdump", "kernels"),
    summary="ExecuTorch Cortex-M; provider arm (any board) or ns (Ambiq CPUs only)",
    backends=BACKENDS,
    pins=PINS,
))


@hookimpl
def hpx_validate_config(request: ConfigRequest) -> ExecutorchConfig:
    config = request.section.structure(ExecutorchConfig)
    if config.ns_ops and request.backend != "ns":
        raise request.section.error(
            "ns_ops",
            f"ns_ops needs the ns provider, but engine.backend is {request.backend!r}",
            "set engine.backend: ns (Apollo boards only), or drop ns_ops",
        )
    if config.cmsis_nn_path and config.cmsis_nn_ref:
        raise request.section.error(
            "cmsis_nn_ref",
            "cmsis_nn_path and cmsis_nn_ref both override the provider",
            "keep one of them",
        )
    return config


@hookimpl
def hpx_read_model(request: ModelRequest) -> ModelInfo | None:
    """An ExecuTorch program, known by its file identifier (not its name); None for any other
    file, before the reader is imported."""
    if not _PROGRAM.fullmatch(request.data[4:8]):
        return None
    from hpx_executorch.pte_reader import read_pte

    return read_pte(request.data, request.path, request.sha256)


@hookimpl
def hpx_materialize_sources(request: SourcesRequest) -> SourceSet:
    from hpx_executorch.engine import executorch_sources

    return executorch_sources(request.catalog, request.engine.backend, request.board,
                              request.engine.config_as(ExecutorchConfig),
                              offline=request.offline)


@hookimpl
def hpx_plan_memory(request: MemoryRequest) -> MemoryNeeds:
    """The program and the runtime's buffers, sized from the program and the config."""
    from hpx_executorch.engine import check_backend
    from hpx_executorch.memory import executorch_needs
    from hpx_executorch.settings import resolve

    config = request.engine.config_as(ExecutorchConfig)
    settings = resolve(config, check_backend(request.engine.backend), request.model)
    return executorch_needs(request, config, settings)


@hookimpl
def hpx_generate_firmware(request: FirmwareRequest) -> FirmwareContribution:
    # The runtime is built with the toolchain the config names: refuse one that is not there
    # (ATfE without ATFE_ROOT, say) before the long runtime build starts.
    from hpx_core.sdk.firmware import get_toolchain
    from hpx_executorch.engine import executorch_glue, executorch_runtime, prepare

    toolchain = get_toolchain(request.toolchain)
    config = request.engine.config_as(ExecutorchConfig)
    prepared = prepare(request.model, config, request.engine.backend, request.board,
                       request.sources, request.check_layers)
    runtime = executorch_runtime(request.sources, prepared.settings, request.board,
                                 jobs=request.jobs, toolchain=toolchain, kernels=config.kernels)
    return executorch_glue(request.model, prepared, runtime, request.board, request.layout)


@hookimpl
def hpx_verify_symbols(request: SymbolsRequest) -> list[SymbolFinding]:
    """A run knows what to expect from its settings; ``hpx verify-kernels`` from ``--expect``
    (``portable``: portable kernels must be linked; ``ns_ops``: the cortex_m_ns kernels)."""
    if request.engine != ENGINE:
        return []
    from hpx_executorch.firmware import ExecutorchFacts
    from hpx_executorch.verify import findings

    if isinstance(request.facts, ExecutorchFacts):
        portable = bool(request.facts.settings.portable_ops)
        ns_ops = request.facts.settings.ns_ops
    else:
        portable, ns_ops = "portable" in request.expect, "ns_ops" in request.expect
    return findings(request.symbols, request.backend or BACKENDS[0], expect_portable=portable,
                    ns_ops=ns_ops)


@hookimpl
def hpx_explain_error(request: ErrorRequest) -> Explanation | None:
    """The runner's error codes in ExecuTorch's words; a missing operator is named."""
    from hpx_executorch.engine import explain_failure

    failure = explain_failure(request.capture, request.model)
    return Explanation(failure.message, failure.hint) if failure is not None else None


@hookimpl
def hpx_result_extras(request: ResultsRequest) -> ResultExtras:
    """What was fed, what the runtime reported, the host reference of the output, and
    the ETDump the device wrote (with --check-layers or ``etdump``)."""

    from hpx_executorch.engine import absent_submodules
    from hpx_executorch.etdump import etdump_files, etdump_record, input_files, layer_check_note
    from hpx_executorch.firmware import ExecutorchFacts
    from hpx_executorch.outputs import reference_output

    facts = request.facts_as(ExecutorchFacts)
    extras: dict[str, Any] = {
        "input": "reference codes (integer hash of the NCHW index + channel offsets) / 128",
        "backend": facts.settings.backend,
        "runtime_key": facts.runtime_key,
        "layers": [layer.name for layer in facts.table.layers],
        "runtime_metrics": request.capture.metrics(),
    }
    absent = absent_submodules(request.sources)
    if absent:
        extras["absent_submodules"] = {
            "paths": absent,
            "effect": "not added to the build (ExecuTorch's host-only third-party/json is "
                      "skipped when absent); provenance says development-overrides",
        }
    reference = reference_output(request.model)
    references = (reference,) if reference is not None else ()
    settings = facts.settings
    if settings.etdump == "off":
        return ResultExtras(extras, reference_outputs=references)
    files = etdump_files(request.capture)
    if files:
        files |= input_files(request.model)
    extras["etdump"] = etdump_record(settings, files, request.capture.start.text("units"))
    return ResultExtras(extras, files=files, layer_check_note=layer_check_note(settings, files),
                        reference_outputs=references)


@hookimpl
def hpx_describe_model(request: NotesRequest) -> list[ModelNote]:
    """Which kernel libraries the program's operators need, and its sidecar."""
    from hpx_executorch.providers import needs_ns_ops, portable_ops, provider_counts
    from hpx_executorch.sidecar import sidecar_of

    model = request.model
    if model.format != "pte":
        return []
    counts = ", ".join(f"{k} {v}" for k, v in sorted(provider_counts(model).items()))
    notes = [ModelNote("kernel providers", counts or "-"),
             ModelNote("portable ops", ", ".join(portable_ops(model)) or "none")]
    if needs_ns_ops(model):
        notes.append(ModelNote("needs ns_ops", "cortex_m_ns:: kernels (engine.backend ns, "
                                               "engine.config.ns_ops true; Ambiq Apollo boards "
                                               "only)", warning=True))
    sidecar = sidecar_of(model)
    if sidecar is not None:
        notes.append(ModelNote("sidecar", f"{sidecar.path.name} (sha256 verified)"))
    return notes


@hookimpl
def hpx_match_manifest(request: ManifestRequest) -> MatchManifest | None:
    """Pair two programs of one model (e.g. arm and ns) through ``tier1_manifest.json``."""
    from hpx_core.sdk.matching import parse_match_manifest
    from hpx_executorch.tier1 import is_tier1_manifest, match_for_bundles

    if not isinstance(request.document, Mapping) or not is_tier1_manifest(request.document):
        return None
    answer = match_for_bundles(request.document, request.model, request.base_sha256,
                               request.candidate_sha256)
    return parse_match_manifest(answer, "the Tier-1 export manifest")


if TYPE_CHECKING:  # mypy checks every hook against the contract (hpx_core.engine_protocol)
    from hpx_core.sdk import engine_protocol as contract
    from hpx_executorch import plugin as this

    _engine: contract.Engine = this
    _readsitsownformat: contract.ReadsItsOwnFormat = this
    _describesmodels: contract.DescribesModels = this
    _materializessources: contract.MaterializesSources = this
    _plansmemory: contract.PlansMemory = this
    _explainserrors: contract.ExplainsErrors = this
    _matchesmanifests: contract.MatchesManifests = this
