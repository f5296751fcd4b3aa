"""Hook implementations of the ``tinyseq`` engine, in the order the pipeline calls them.

hpx loads every installed plugin for every command, so this module imports only the engine's
identity and config; each hook imports the machinery it adapts when it is called.
``hpx_materialize_sources`` is not implemented: the kernels ship inside the package, and the
pins declare no repository. ``hpx_verify_symbols`` goes to every plugin and answers ``[]`` for
another engine's ELF; ``hpx_read_model`` answers None for a file that is not a tinyseq model.
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
    HpxError,
    MemoryNeeds,
    MemoryRequest,
    ModelRequest,
    ResultExtras,
    ResultsRequest,
    SymbolFinding,
    SymbolsRequest,
    engines_hook,
    hookimpl,
)
from hpx_core.sdk.models import ModelInfo
from hpx_tinyseq import config
from hpx_tinyseq.identity import BACKENDS, ENGINE, FORMAT, PINS

hpx_engines = engines_hook(EngineDescriptor(
    name=ENGINE,
    model_formats=(FORMAT,),
    config_class=config.TinyseqConfig,
    library_options=(),
    summary="int8 dense/ReLU/clamp sequences from a .tseq text file: plain or unrolled C dense "
    "kernel",
    backends=BACKENDS,
    pins=PINS,
))


@hookimpl
def hpx_validate_config(request: ConfigRequest) -> config.TinyseqConfig:
    return config.validate(request)


@hookimpl
def hpx_read_model(request: ModelRequest) -> ModelInfo | None:
    from hpx_tinyseq.model import is_tinyseq_file

    if not is_tinyseq_file(request.path, request.data):
        return None  # asked of every plugin: another engine's file loads nothing of this one
    from hpx_tinyseq import engine

    return engine.read_model(request)


@hookimpl
def hpx_plan_memory(request: MemoryRequest) -> MemoryNeeds:
    from hpx_tinyseq import engine

    return engine.plan_memory(request)


@hookimpl
def hpx_generate_firmware(request: FirmwareRequest) -> FirmwareContribution:
    from hpx_tinyseq import engine

    return engine.firmware(request)


@hookimpl
def hpx_verify_symbols(request: SymbolsRequest) -> list[SymbolFinding]:
    if request.engine != ENGINE:
        return []
    from hpx_tinyseq import results

    dense = request.model is None or "dense" in request.model.resolver_ops
    return results.verify_symbols(request.backend or BACKENDS[0], request.symbols, dense)


@hookimpl
def hpx_explain_error(request: ErrorRequest) -> Explanation | None:
    from hpx_tinyseq import engine, results

    try:
        names = engine.sequence_of(request.model).names
    except HpxError:
        names = ()
    return results.explain(request.code, request.stage, names)


@hookimpl
def hpx_result_extras(request: ResultsRequest) -> ResultExtras:
    from hpx_tinyseq import results

    facts = request.facts_as(results.TinyseqFacts)
    return ResultExtras(results.result_extras(request.capture, facts),
                        reference_outputs=(results.reference_output(facts),))


if TYPE_CHECKING:  # mypy checks every hook against the contract (hpx_core.engine_protocol)
    from hpx_core.sdk import engine_protocol as contract
    from hpx_tinyseq import plugin as this

    _engine: contract.Engine = this
    _reads: contract.ReadsItsOwnFormat = this
    _plans: contract.PlansMemory = this
    _explains: contract.ExplainsErrors = this
