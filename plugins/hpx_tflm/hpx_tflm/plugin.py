"""Hook implementations of the ``tflm`` engine: each adapts a request to the typed functions
of :mod:`hpx_tflm.engine`.

Every hpx command loads this module, whatever engine it runs: it imports only the engine's
identity and config, and each hook imports the machinery it adapts when it is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpx_core.sdk import (
    EngineDescriptor,
    ErrorRequest,
    Explanation,
    FirmwareContribution,
    FirmwareRequest,
    HostOutputs,
    HostOutputsRequest,
    MemoryNeeds,
    MemoryRequest,
    ModelCheckRequest,
    ModelRefusal,
    ResultExtras,
    ResultsRequest,
    SourceSet,
    SourcesRequest,
    SymbolFinding,
    SymbolsRequest,
    config_hook,
    engines_hook,
    hookimpl,
)
from hpx_core.sdk.models import CONTROL_FLOW_CODE
from hpx_tflm.config import TflmConfig
from hpx_tflm.identity import BACKENDS, ENGINE, PINS

hpx_engines = engines_hook(EngineDescriptor(
    name=ENGINE,
    model_formats=("tflite",),
    config_class=TflmConfig,
    library_options=("source_path", "kernels"),
    summary="upstream TensorFlow Lite Micro (Apache-2.0)",
    backends=BACKENDS,
    pins=PINS,
    # TFLM plans control-flow subgraphs' memory from builtin_code alone
    model_fields=(CONTROL_FLOW_CODE,),
))


hpx_validate_config = config_hook(TflmConfig)


@hookimpl
def hpx_check_model(request: ModelCheckRequest) -> ModelRefusal | None:
    """An operator whose quantization TFLite Micro refuses in its kernel's Prepare, named
    before anything is fetched (hpx config validate says it too)."""
    from hpx_tflm_family import check_model

    return check_model(request.model)


@hookimpl
def hpx_materialize_sources(request: SourcesRequest) -> SourceSet:
    from hpx_tflm.engine import tflm_sources

    config = request.engine.config_as(TflmConfig)
    return tflm_sources(request.catalog, request.engine.backend, request.board, config,
                        offline=request.offline)


@hookimpl
def hpx_plan_memory(request: MemoryRequest) -> MemoryNeeds:
    """The model and the tensor arena; the code as measured for upstream TFLM."""
    from hpx_tflm_family import family_needs

    from hpx_tflm.engine import CODE

    return family_needs(request, CODE)


@hookimpl
def hpx_generate_firmware(request: FirmwareRequest) -> FirmwareContribution:
    from hpx_tflm_family import planned_arena, select_ops

    from hpx_core.sdk.firmware import get_toolchain
    from hpx_tflm.engine import tflm_firmware, tflm_library

    config = request.engine.config_as(TflmConfig)
    library = tflm_library(request.sources, request.engine.backend, request.board,
                           select_ops(request.model, config.resolver_ops),
                           kernels=config.kernels, jobs=request.jobs,
                           toolchain=get_toolchain(request.toolchain))
    return tflm_firmware(request.model, config, request.sources, library,
                         planned_arena(request), request.layout, board=request.board,
                         check_layers=request.check_layers)


@hookimpl
def hpx_verify_symbols(request: SymbolsRequest) -> list[SymbolFinding]:
    if request.engine != ENGINE:
        return []
    from hpx_tflm.symbols import verify_symbols

    return verify_symbols(request.backend or BACKENDS[0], set(request.symbols))


@hookimpl
def hpx_result_extras(request: ResultsRequest) -> ResultExtras:
    """Input used, arena (allocated and the 1.5x suggestion), the host's outputs."""
    from hpx_tflm_family import FamilyFacts, family_extra, reference_outputs

    facts = request.facts_as(FamilyFacts)
    return ResultExtras(family_extra(request.capture, facts),
                        reference_outputs=reference_outputs(facts.host_outputs, request.model))


@hookimpl
def hpx_host_outputs(request: HostOutputsRequest) -> HostOutputs:
    """A data set's samples through the tflite-micro Python interpreter, one per batch."""
    from hpx_tflm_family import batch_outputs

    outputs = batch_outputs(request.model_file.read_bytes(), request.samples, request.model)
    return HostOutputs(outputs, "tflite-micro Python interpreter, same model and input bytes")


@hookimpl
def hpx_explain_error(request: ErrorRequest) -> Explanation | None:
    """The glue's error codes in words; a too-small arena named, for the core to measure."""
    from hpx_tflm_family import explain

    return explain(request.code, request.capture)


if TYPE_CHECKING:  # mypy checks every hook against the contract (hpx_core.engine_protocol)
    from hpx_core.sdk import engine_protocol as contract
    from hpx_tflm import plugin as this

    _engine: contract.Engine = this
    _checksmodels: contract.ChecksModels = this
    _materializessources: contract.MaterializesSources = this
    _plansmemory: contract.PlansMemory = this
    _explainserrors: contract.ExplainsErrors = this
    _runshostreference: contract.RunsHostReference = this
