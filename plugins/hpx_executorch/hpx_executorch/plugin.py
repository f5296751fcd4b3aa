"""Hook implementations of the ``executorch`` engine.

The hooks read these attributes of the pipeline's context: ``config`` (ProfileConfig),
``engine_config`` (ExecutorchConfig), ``board`` (Board), ``model`` (ModelInfo) and, from the
firmware stage on, ``sources`` (the SourceSet this plugin returned). The work is done by the
typed functions of :mod:`hpx_executorch.engine`.
"""

from __future__ import annotations

from typing import Any

import attrs

from hpx_core import ConfigContext, EngineDescriptor, context_engine, hookimpl
from hpx_core.build import SymbolInventory, get_toolchain
from hpx_core.engine import FirmwareContribution, LayerRecord, SourceSet, SymbolFinding
from hpx_core.results import measure
from hpx_core.wire import Capture
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.engine import (
    BACKENDS,
    ENGINE,
    absent_submodules,
    executorch_glue,
    executorch_layers,
    executorch_runtime,
    executorch_sources,
    explain_failure,
    prepare,
)
from hpx_executorch.outputs import check_output, reference_path
from hpx_executorch.tier1 import is_tier1_manifest, match_for_bundles
from hpx_executorch.verify import findings


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [
        EngineDescriptor(
            name=ENGINE,
            model_formats=("pte",),
            config_class=ExecutorchConfig,
            summary="ExecuTorch Cortex-M; provider arm (any board) or ns (Ambiq CPUs only)",
            backends=BACKENDS,
        )
    ]


@hookimpl
def hpx_validate_config(ctx: ConfigContext) -> ExecutorchConfig:
    config = ctx.document.structure(ExecutorchConfig, "engine.config")
    backend = ctx.config.engine.backend
    if config.ns_ops and backend != "ns":
        raise ctx.document.error(
            "engine.config.ns_ops",
            f"ns_ops needs the ns provider, but engine.backend is {backend!r}",
            "set engine.backend: ns (Apollo boards only), or drop ns_ops",
        )
    if config.cmsis_nn_path and config.cmsis_nn_ref:
        raise ctx.document.error(
            "engine.config.cmsis_nn_ref",
            "cmsis_nn_path and cmsis_nn_ref both override the provider",
            "keep one of them",
        )
    return config


@hookimpl
def hpx_materialize_sources(ctx: Any) -> SourceSet:
    return executorch_sources(ctx.config.engine.backend, ctx.board, ctx.engine_config,
                              offline=ctx.config.build.offline)


@hookimpl
def hpx_generate_firmware(ctx: Any) -> FirmwareContribution:
    # The runtime is built with the toolchain the config names: refuse one without a recipe
    # (ATfE without ATFE_ROOT, say) before the long runtime build starts.
    get_toolchain(ctx.config.target.toolchain).require()
    prepared = prepare(ctx.model, ctx.engine_config, ctx.config.engine.backend, ctx.board,
                       ctx.sources)
    runtime = executorch_runtime(ctx.sources, prepared.settings, ctx.board,
                                 jobs=ctx.config.build.jobs or 2)
    return executorch_glue(ctx.model, prepared, runtime)


@hookimpl
def hpx_verify_symbols(ctx: Any, inventory: SymbolInventory) -> list[SymbolFinding]:
    if context_engine(ctx) != ENGINE:
        return []
    model = getattr(ctx, "model", None)
    # `hpx verify-kernels` says what to expect; a run derives it from its program.
    portable = getattr(ctx, "expect_portable", None)
    if portable is None:
        portable = bool(model.portable_ops) if model is not None else False
    ns_ops = getattr(ctx, "ns_ops", None)
    if ns_ops is None:
        ns_ops = bool(model.needs_ns_ops) if model is not None else False
    return findings(inventory.names(), ctx.config.engine.backend or "arm", expect_portable=portable,
                    ns_ops=ns_ops)


@hookimpl
def hpx_parse_results(ctx: Any, capture: Capture) -> list[LayerRecord]:
    """One record per kernel call, named ``<operator>:c<chain>i<instruction>``."""
    failure = explain_failure(capture, ctx.model)
    if failure is not None:
        raise failure
    return executorch_layers(measure(capture, ctx.board))


@hookimpl
def hpx_result_extras(ctx: Any, capture: Capture) -> dict[str, Any]:
    """What was fed, what the runtime reported, and the output against the host reference."""
    extras: dict[str, Any] = {
        "input": "reference codes (integer hash of the NCHW index + channel offsets) / 128",
        "runtime_metrics": capture.metrics(),
    }
    absent = absent_submodules(ctx.sources) if ctx.sources is not None else []
    if absent:
        extras["absent_submodules"] = {
            "paths": absent,
            "effect": "not added to the build (ExecuTorch's host-only third-party/json is "
                      "skipped when absent); provenance says development-overrides",
        }
    failure = explain_failure(capture, ctx.model)
    if failure is not None:
        extras["failure"] = {"message": failure.message, "hint": failure.hint}
    outputs = capture.outputs()
    reference = reference_path(ctx.model)
    if 0 in outputs and reference.is_file():
        extras["output_check"] = attrs.asdict(check_output(ctx.model, outputs[0], reference))
    return extras


@hookimpl
def hpx_match_manifest(
    document: Any, model: str | None, base_sha256: str, candidate_sha256: str
) -> dict[str, Any] | None:
    """Pair two programs of one model (e.g. arm and ns) through ``tier1_manifest.json``."""
    if not is_tier1_manifest(document):
        return None
    return match_for_bundles(document, model, base_sha256, candidate_sha256)
