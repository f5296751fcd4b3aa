"""Hook implementations of the ``helia-aot`` engine: each adapts a request to the typed
functions of :mod:`hpx_heliaaot.engine`.

The installed compiler is checked when the engine's config is validated (missing or below its
floor: the version found, the floor and the pip command). Its output is under the Ambiq Apollo
SDK License: the license gate refuses non-Ambiq CPUs before fetching anything, and the sources
step refuses a helia-aot whose generated code needs a newer ns-cmsis-nn than the one it would
build against. Loading this module (every hpx command does) imports only the engine's
identity and config; each hook imports what it adapts when it is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hpx_core.sdk import (
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
    engines_hook,
    hookimpl,
)
from hpx_core.sdk.models import SUBGRAPH_NAME
from hpx_heliaaot.config import ENV, HeliaAotConfig
from hpx_heliaaot.identity import ENGINE, PINS

hpx_engines = engines_hook(EngineDescriptor(
    name=ENGINE,
    model_formats=("tflite",),
    config_class=HeliaAotConfig,
    library_options=("cmsis_nn_path", "platform"),
    summary="Ambiq heliaAOT compiler (Ambiq Apollo SDK License: Ambiq CPUs only)",
    pins=PINS,
    model_fields=(SUBGRAPH_NAME,),  # heliaAOT 0.18's AirModel.name is required
))


@hookimpl
def hpx_validate_config(request: ConfigRequest) -> HeliaAotConfig:
    from hpx_heliaaot.versions import require_helia_aot

    config = request.section.structure(HeliaAotConfig, env=ENV)
    require_helia_aot()
    return config


@hookimpl
def hpx_materialize_sources(request: SourcesRequest) -> SourceSet:
    from hpx_heliaaot.engine import aot_sources

    config = request.engine.config_as(HeliaAotConfig)
    return aot_sources(request.catalog, request.board, config, offline=request.offline)


@hookimpl
def hpx_plan_memory(request: MemoryRequest) -> MemoryNeeds:
    """What the user placed; heliaAOT's own plan places the rest."""
    from hpx_heliaaot.memory import aot_needs

    return aot_needs(request)


@hookimpl
def hpx_generate_firmware(request: FirmwareRequest) -> FirmwareContribution:
    from hpx_core.sdk.firmware import get_toolchain
    from hpx_heliaaot.engine import aot_firmware, aot_kernels, aot_module

    config = request.engine.config_as(HeliaAotConfig)
    module = aot_module(request.model, config, request.board, request.scratch, request.log,
                        request.layout)
    kernels = aot_kernels(request.sources, request.board, jobs=request.jobs,
                          toolchain=get_toolchain(request.toolchain))
    return aot_firmware(request.model, config, module, kernels)


@hookimpl
def hpx_verify_symbols(request: SymbolsRequest) -> list[SymbolFinding]:
    if request.engine != ENGINE:
        return []
    from hpx_heliaaot.engine import AotFacts
    from hpx_heliaaot.symbols import verify_symbols

    prefix = HeliaAotConfig().prefix
    if isinstance(request.facts, AotFacts):
        prefix = request.facts.prefix
    return verify_symbols(prefix, set(request.symbols))


@hookimpl
def hpx_result_extras(request: ResultsRequest) -> ResultExtras:
    """The compiler's operator manifest and memory plan (its static arenas for the memory
    section), and the host's outputs."""
    from hpx_tflm_family import reference_outputs

    from hpx_heliaaot.engine import AotFacts
    from hpx_heliaaot.memory import static_arenas

    facts = request.facts_as(AotFacts)
    return ResultExtras({
        "helia_aot": facts.helia_aot, "platform": facts.platform, "input": facts.input,
        "operators": [dict(op) for op in facts.operators], "memory_plan": dict(facts.memory_plan),
    }, reference_outputs=reference_outputs(facts.host_outputs, request.model),
        memory=static_arenas(facts.memory_plan))


if TYPE_CHECKING:  # mypy checks every hook against the contract (hpx_core.engine_protocol)
    from hpx_core.sdk import engine_protocol as contract
    from hpx_heliaaot import plugin as this

    _engine: contract.Engine = this
    _materializessources: contract.MaterializesSources = this
    _plansmemory: contract.PlansMemory = this
