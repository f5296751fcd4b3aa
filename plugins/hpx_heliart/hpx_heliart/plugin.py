"""Hook implementations of the ``helia-rt`` engine: each adapts a request to the typed
functions of :mod:`hpx_heliart.engine`. heliaRT is under the Ambiq Apollo SDK License: the
license gate refuses non-Ambiq CPUs before anything is fetched.
"""

from __future__ import annotations

from hpx_core import hookimpl
from hpx_core.contract import (
    ConfigRequest,
    EngineDescriptor,
    FirmwareContribution,
    FirmwareRequest,
    MemoryNeeds,
    MemoryRequest,
    ResultExtras,
    ResultsRequest,
    SourceSet,
    SourcesRequest,
    SymbolFinding,
    SymbolsRequest,
)
from hpx_core.models.tflite_fields import CONTROL_FLOW_CODE
from hpx_core.tflm_family import FamilyFacts, family_extra, family_needs, planned_arena
from hpx_heliart.config import ENV, HeliaRtConfig
from hpx_heliart.engine import (
    BACKENDS,
    CODE,
    ENGINE,
    PINS,
    check_backend,
    heliart_firmware,
    heliart_library,
    heliart_sources,
)
from hpx_heliart.symbols import verify_symbols


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [
        EngineDescriptor(
            name=ENGINE,
            model_formats=("tflite",),
            config_class=HeliaRtConfig,
            summary="Ambiq heliaRT (Ambiq Apollo SDK License: Ambiq CPUs only)",
            backends=BACKENDS,
            pins=PINS,
            # heliaRT, like TFLM, plans control-flow subgraphs' memory from builtin_code alone
            model_fields=(CONTROL_FLOW_CODE,),
        )
    ]


@hookimpl
def hpx_validate_config(request: ConfigRequest) -> HeliaRtConfig:
    config = request.document.structure(HeliaRtConfig, "engine.config", env=ENV)
    chosen = [name for name in ("source_path", "dist_path", "source") if getattr(config, name)]
    if len(chosen) > 1:
        raise request.document.error(
            f"engine.config.{chosen[1]}",
            f"{' and '.join(chosen)} both choose where heliaRT comes from",
            "keep one of them (check HELIART_SOURCE_PATH / HELIART_DIST_PATH too)",
        )
    return config


@hookimpl
def hpx_materialize_sources(request: SourcesRequest) -> SourceSet:
    config = request.engine.config_as(HeliaRtConfig)
    return heliart_sources(request.catalog, request.engine.backend, request.board, config,
                           offline=request.offline)


@hookimpl
def hpx_plan_memory(request: MemoryRequest) -> MemoryNeeds:
    """The model and the tensor arena, as for every MicroInterpreter engine."""
    return family_needs(request, CODE)


@hookimpl
def hpx_generate_firmware(request: FirmwareRequest) -> FirmwareContribution:
    config = request.engine.config_as(HeliaRtConfig)
    library = heliart_library(request.sources, request.engine.backend, request.board, config,
                              jobs=request.jobs)
    return heliart_firmware(request.model, config, request.sources, library,
                            planned_arena(request), request.layout, board=request.board,
                            check_layers=request.check_layers)


@hookimpl
def hpx_verify_symbols(request: SymbolsRequest) -> list[SymbolFinding]:
    if request.engine != ENGINE:
        return []
    return verify_symbols(check_backend(request.backend), set(request.symbols))


@hookimpl
def hpx_result_extras(request: ResultsRequest) -> ResultExtras:
    """Input used, arena (allocated and the 1.5x suggestion), outputs against the host."""
    extra = family_extra(request.capture, request.facts_as(FamilyFacts), request.model)
    return ResultExtras({"backend": request.engine.backend, **extra})
