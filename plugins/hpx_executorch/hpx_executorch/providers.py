"""Which kernel library an ExecuTorch operator needs, by its namespace: the engine's reading of
a program, not the core's (the core's reader gives every operator its namespace).

``cortex_m::`` kernels are Arm's CMSIS-NN (any Cortex-M), ``cortex_m_ns::`` Ambiq's ns-cmsis-nn
(Ambiq CPUs only), ``aten::*.out`` ExecuTorch's portable kernels; anything else needs a kernel
library of its own, and a delegate call a backend.
"""

from __future__ import annotations

import enum

from hpx_core.sdk.models import ModelInfo
from hpx_executorch.program import ExecutionPlan, OperatorRef, program_of


class Provider(enum.StrEnum):
    """The kernel library an operator's namespace asks for."""

    CMSIS_NN = "cortex_m"  # stock Arm CMSIS-NN kernels (cortex_m::)
    NS = "cortex_m_ns"  # Ambiq NS Tier-1 kernels (cortex_m_ns::), Ambiq CPUs only
    PORTABLE = "portable"  # ExecuTorch portable ATen kernels (aten::*.out)
    OTHER = "other"  # any other namespace: needs a custom kernel library
    DELEGATE = "delegate"  # a backend delegate call, not a kernel


def provider(name: str, overload: str | None) -> Provider:
    """The provider of the operator ``name`` (``namespace::op``) with ``overload``."""
    if name.startswith("delegate:"):
        return Provider.DELEGATE
    namespace = name.partition("::")[0]
    if namespace == "cortex_m":
        return Provider.CMSIS_NN
    if namespace == "cortex_m_ns":
        return Provider.NS
    if namespace == "aten" and (overload or "").endswith("out"):
        return Provider.PORTABLE
    return Provider.OTHER


def forward_plan(model: ModelInfo) -> ExecutionPlan | None:
    """The plan the core analyzed (``forward``, else the first); None for another format."""
    program = program_of(model)
    if program is None or not program.plans:
        return None
    plans = program.plans
    return next((p for p in plans if p.name == "forward"), plans[0])


def _table(model: ModelInfo) -> tuple[OperatorRef, ...]:
    plan = forward_plan(model)
    return plan.operators if plan is not None else ()


def _ops_of(model: ModelInfo, kind: Provider) -> tuple[str, ...]:
    return tuple(sorted({f"{op.name}.{op.overload}" for op in _table(model)
                         if provider(op.name, op.overload) is kind}))


def portable_ops(model: ModelInfo) -> tuple[str, ...]:
    """The portable kernels of the plan's operator table (``aten::op.out``), sorted."""
    return _ops_of(model, Provider.PORTABLE)


def cortex_m_ops(model: ModelInfo) -> tuple[str, ...]:
    """The Cortex-M operators of the plan's operator table (``cortex_m::op.out``), sorted."""
    return _ops_of(model, Provider.CMSIS_NN)


def needs_ns_ops(model: ModelInfo) -> bool:
    """The plan calls Ambiq's ``cortex_m_ns::`` kernels."""
    return any(provider(op.name, op.overload) is Provider.NS for op in _table(model))


def provider_counts(model: ModelInfo) -> dict[str, int]:
    """Executed operators per provider."""
    counts: dict[str, int] = {}
    for op in model.operators:
        kind = provider(op.name, op.overload).value
        counts[kind] = counts.get(kind, 0) + 1
    return counts
