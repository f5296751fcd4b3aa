"""Hook implementations of the ``kernelbench`` engine, in the order the pipeline calls them.

Each adapts one request of :mod:`hpx_core.contract` to the typed functions of the package; the
core calls them only for runs of this engine (``hpx_verify_symbols`` excepted: it goes to every
plugin, so it answers ``[]`` for another engine's ELF). ``hpx_materialize_sources`` is not
implemented: the core brings the pins the engine declares for the chosen backend, which is all
kernelbench needs. ``hpx_match_manifest`` is not
implemented: kernelbench has no export manifest, and two bundles of one kernels file compare
layer by layer without one.

hpx loads every installed plugin for every command, so this module imports only the engine's
identity, config and format name; each hook imports the machinery it adapts when called.
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
    ModelRequest,
    ResultExtras,
    ResultsRequest,
    SymbolFinding,
    SymbolsRequest,
    engines_hook,
    hookimpl,
)
from hpx_core.sdk.models import ModelInfo
from hpx_kernelbench import config
from hpx_kernelbench.identity import BACKENDS, ENGINE, PINS
from hpx_kernelbench.kernels import FORMAT

hpx_engines = engines_hook(EngineDescriptor(
    name=ENGINE,
    model_formats=(FORMAT,),
    config_class=config.KernelbenchConfig,
    library_options=(),
    summary="int8 kernel micro-benchmarks: portable C, Arm CMSIS-NN or ns-cmsis-nn "
    "(ns: Ambiq CPUs only)",
    backends=BACKENDS,
    pins=PINS,
))


@hookimpl
def hpx_validate_config(request: ConfigRequest) -> config.KernelbenchConfig:
    return config.validate(request)


@hookimpl
def hpx_read_model(request: ModelRequest) -> ModelInfo | None:
    from hpx_kernelbench.model import is_kernelbench_file

    if not is_kernelbench_file(request.path, request.data):
        return None  # asked of every plugin: another engine's file loads nothing of this one
    from hpx_kernelbench import engine

    return engine.read_benchmark(request)


@hookimpl
def hpx_generate_firmware(request: FirmwareRequest) -> FirmwareContribution:
    from hpx_kernelbench import engine

    return engine.firmware(request)


@hookimpl
def hpx_verify_symbols(request: SymbolsRequest) -> list[SymbolFinding]:
    if request.engine != ENGINE:
        return []
    from hpx_kernelbench import symbols

    if request.model is not None:  # after a run's build
        ops = [op.name for op in request.model.operators]
    else:  # `hpx verify-kernels --expect conv2d` on a bare ELF; no --expect: both operators
        ops = sorted(request.expect & set(symbols.PORTABLE)) or sorted(symbols.PORTABLE)
    return symbols.verify_symbols(request.backend or BACKENDS[0], request.symbols, ops)


@hookimpl
def hpx_explain_error(request: ErrorRequest) -> Explanation | None:
    from hpx_kernelbench import engine, results

    try:
        names = engine.kernels_of(request.model).names
    except HpxError:
        names = ()
    return results.explain(request.code, request.stage, request.engine.backend, names)


@hookimpl
def hpx_result_extras(request: ResultsRequest) -> ResultExtras:
    from hpx_kernelbench import results

    facts = request.facts_as(results.KernelbenchFacts)
    return ResultExtras(results.result_extras(request.capture, facts),
                        reference_outputs=(results.reference_output(facts),))


if TYPE_CHECKING:  # mypy checks every hook against the contract (hpx_core.engine_protocol)
    from hpx_core.sdk import engine_protocol as contract
    from hpx_kernelbench import plugin as this

    _engine: contract.Engine = this
    _readsitsownformat: contract.ReadsItsOwnFormat = this
    _explainserrors: contract.ExplainsErrors = this
