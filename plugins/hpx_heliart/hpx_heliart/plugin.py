"""Hook implementations of the ``helia-rt`` engine: each adapts a request to the typed
functions of :mod:`hpx_heliart.engine`. heliaRT is under the Ambiq Apollo SDK License: the
license gate refuses non-Ambiq CPUs before anything is fetched. Loading this module (every
hpx command does) imports only the engine's identity and config; each hook imports what it
adapts when it is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpx_core.sdk import (
    ConfigRequest,
    EngineDescriptor,
    ErrorRequest,
    Explanation,
    FirmwareContribution,
    FirmwareRequest,
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
    engines_hook,
    hookimpl,
)
from hpx_core.sdk.models import CONTROL_FLOW_CODE
from hpx_heliart.config import ENV, HeliaRtConfig
from hpx_heliart.identity import BACKENDS, ENGINE, PINS

hpx_engines = engines_hook(EngineDescriptor(
    name=ENGINE,
    model_formats=("tflite",),
    config_class=HeliaRtConfig,
    library_options=("source_path", "dist_path", "source", "variant", "kernels"),
    summary="Ambiq heliaRT (Ambiq Apollo SDK License: Ambiq CPUs only)",
    backends=BACKENDS,
    pins=PINS,
    # heliaRT, like TFLM, plans control-flow subgraphs' memory from builtin_code alone
    model_fields=(CONTROL_FLOW_CODE,),
))


@hookimpl
def hpx_validate_config(request: ConfigRequest) -> HeliaRtConfig:
    config = request.section.structure(HeliaRtConfig, env=ENV)
    chosen = [name for name in ("source_path", "dist_path", "source") if getattr(config, name)]
    if len(chosen) > 1:
        raise request.section.error(
            chosen[1],
            f"{' and '.join(chosen)} both choose where heliaRT comes from",
            "keep one of them (check HELIART_SOURCE_PATH / HELIART_DIST_PATH too)",
        )
    return config


@hookimpl
def hpx_check_model(request: ModelCheckRequest) -> ModelRefusal | None:
    """An operator whose quantization heliaRT (TFLite Micro's kernels' Prepare rules) refuses,
    named before anything is fetched (hpx config validate says it too)."""
    from hpx_tflm_family import check_model

    return check_model(request.model)


@hookimpl
def hpx_materialize_sources(request: SourcesRequest) -> SourceSet:
    from hpx_heliart.engine import heliart_sources

    config = request.engine.config_as(HeliaRtConfig)
    return heliart_sources(request.catalog, request.engine.backend, request.board, config,
                           offline=request.offline)


@hookimpl
def hpx_plan_memory(request: MemoryRequest) -> MemoryNeeds:
    """The model and the tensor arena, as for every MicroInterpreter engine."""
    from hpx_tflm_family import family_needs

    from hpx_heliart.engine import CODE

    return family_needs(request, CODE)


@hookimpl
def hpx_generate_firmware(request: FirmwareRequest) -> FirmwareContribution:
    from hpx_tflm_family import planned_arena, select_ops

    from hpx_core.sdk.firmware import get_toolchain
    from hpx_heliart.engine import heliart_firmware, heliart_library

    config = request.engine.config_as(HeliaRtConfig)
    library = heliart_library(request.sources, request.engine.backend, request.board, config,
                              jobs=request.jobs, toolchain=get_toolchain(request.toolchain),
                              ops=select_ops(request.model, config.resolver_ops))
    return heliart_firmware(request.model, config, request.sources, library,
                            planned_arena(request), request.layout, board=request.board,
                            check_layers=request.check_layers)


@hookimpl
def hpx_verify_symbols(request: SymbolsRequest) -> list[SymbolFinding]:
    if request.engine != ENGINE:
        return []
    from hpx_heliart.engine import check_backend
    from hpx_heliart.symbols import verify_symbols

    return verify_symbols(check_backend(request.backend), set(request.symbols))


@hookimpl
def hpx_result_extras(request: ResultsRequest) -> ResultExtras:
    """Input used, arena (allocated and the 1.5x suggestion), the host's outputs."""
    from hpx_tflm_family import FamilyFacts, family_extra, reference_outputs

    facts = request.facts_as(FamilyFacts)
    return ResultExtras({"backend": request.engine.backend, **family_extra(request.capture, facts)},
                        reference_outputs=reference_outputs(facts.host_outputs, request.model))


@hookimpl
def hpx_explain_error(request: ErrorRequest) -> Explanation | None:
    """The glue's error codes in words; a too-small arena named, for the core to measure."""
    from hpx_tflm_family import explain

    return explain(request.code, request.capture)


if TYPE_CHECKING:  # mypy checks every hook against the contract (hpx_core.engine_protocol)
    from hpx_core.sdk import engine_protocol as contract
    from hpx_heliart import plugin as this

    _engine: contract.Engine = this
    _checksmodels: contract.ChecksModels = this
    _materializessources: contract.MaterializesSources = this
    _plansmemory: contract.PlansMemory = this
    _explainserrors: contract.ExplainsErrors = this
