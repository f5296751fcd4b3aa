"""Hook implementations of the ``executorch`` engine."""

from __future__ import annotations

from hpx_core import ConfigContext, EngineDescriptor, hookimpl
from hpx_executorch.config import ExecutorchConfig

ENGINE = "executorch"


@hookimpl
def hpx_engines() -> list[EngineDescriptor]:
    return [
        EngineDescriptor(
            name=ENGINE,
            model_formats=("pte",),
            config_class=ExecutorchConfig,
            summary="ExecuTorch Cortex-M; provider arm (any board) or ns (Ambiq CPUs only)",
            backends=("arm", "ns"),
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
