"""Checks made before anything is built: can the pinned runtime run this program at all?

Three ways a PTE fails on device only after minutes of building, each caught here from the file:
- exported by another ExecuTorch release than the runtime (the runtime loads it and then fails
  inside ``Method::execute()`` with InvalidProgram);
- ``cortex_m_ns::`` operators on a build without the ns operators (``Method::load()`` fails with
  OperatorMissing);
- a ``mean`` kept as portable ``aten::mean.out`` on channels_last data (execute() fails with
  InvalidArgument on both providers).
"""

from __future__ import annotations

import json
from pathlib import Path

import attrs

from hpx_core.sdk import ConfigError, ModelError
from hpx_core.sdk.models import ModelInfo
from hpx_executorch.program import PteProgram, program_of
from hpx_executorch.schemas import runtime_arities
from hpx_executorch.sidecar import sidecar_of
from hpx_executorch.values import value_dim_orders

EXPORT_HINT = (
    "re-export the model with the pinned runtime's release (pip install executorch=={version} "
    "and nsx-executorch's aot/nsx_cortex_m at the pinned commit), or set engine.config."
    "source_path to a runtime of the release that exported it"
)
CHANNELS_LAST = (0, 2, 3, 1)


@attrs.frozen
class ArityMismatch:
    operator: str
    program: int
    runtime: int


def release_series(version: str) -> str:
    """``1.3`` of ``1.3.1``: releases with the same major.minor share their operator schemas."""
    parts = version.split("+")[0].split(".")
    return ".".join(parts[:2])


def exporter_version(model: ModelInfo) -> str | None:
    """The ExecuTorch release recorded in the sidecar (``exporter.executorch``), if any."""
    sidecar = sidecar_of(model)
    if sidecar is None:
        return None
    try:
        doc = json.loads(sidecar.path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    exporter = doc.get("exporter") if isinstance(doc, dict) else None
    value = exporter.get("executorch") if isinstance(exporter, dict) else None
    return value if isinstance(value, str) else None


def _program(model: ModelInfo) -> PteProgram:
    program = program_of(model)
    if program is None:
        raise ModelError(f"{model.path.name} is not an ExecuTorch program",
                         "the executorch engine reads .pte files")
    return program


def arity_mismatches(model: ModelInfo, runtime_root: Path) -> list[ArityMismatch]:
    """Kernel calls whose argument count differs from the runtime's schema for that operator."""
    program = _program(model)
    names = {op.qualified_name for plan in program.plans for op in plan.operators}
    schemas = runtime_arities(runtime_root, names)
    found: dict[str, ArityMismatch] = {}
    for plan in program.plans:
        for chain in plan.chains:
            for ins in chain:
                if ins.kind != "kernel" or ins.target is None:
                    continue
                name = plan.operators[ins.target].qualified_name
                expected = schemas.get(name)
                if expected is not None and expected != len(ins.args) and name not in found:
                    found[name] = ArityMismatch(name, len(ins.args), expected)
    return list(found.values())


def check_release(model: ModelInfo, runtime_root: Path, runtime_version: str) -> None:
    """Refuse a PTE exported by another ExecuTorch release than the runtime's."""
    hint = EXPORT_HINT.format(version=f"{release_series(runtime_version)}.*")
    exported = exporter_version(model)
    if exported is not None:
        if release_series(exported) != release_series(runtime_version):
            raise ModelError(
                f"{model.path.name} was exported with ExecuTorch {exported}, but the runtime is "
                f"ExecuTorch {runtime_version}; the runtime fails such programs inside execute()",
                hint,
            )
        return
    wrong = arity_mismatches(model, runtime_root)
    if wrong:
        first = wrong[0]
        more = f" (and {len(wrong) - 1} more operators)" if len(wrong) > 1 else ""
        raise ModelError(
            f"{model.path.name} was exported for another ExecuTorch release than the runtime "
            f"(ExecuTorch {runtime_version}): {first.operator} carries {first.program} "
            f"arguments, the runtime's schema takes {first.runtime}{more}",
            hint,
        )


def ns_operators(model: ModelInfo) -> list[str]:
    program = _program(model)
    return sorted({op.qualified_name for plan in program.plans for op in plan.operators
                   if op.name.startswith("cortex_m_ns::")})


def missing_ns_message(names: list[str]) -> tuple[str, str]:
    """The one message for cortex_m_ns:: operators a build does not register."""
    return (f"operator missing: {', '.join(names)}",
            "enable ns_ops with backend ns (Apollo boards only), or re-export with "
            "--kernel-provider arm")


def check_ns_ops(model: ModelInfo, backend: str, ns_ops: bool) -> None:
    """A program calling ``cortex_m_ns::`` kernels needs the ns provider with ns_ops on."""
    names = ns_operators(model)
    if names and not (backend == "ns" and ns_ops):
        message, hint = missing_ns_message(names)
        raise ConfigError(message, hint)


def check_runnable(model: ModelInfo) -> None:
    """Refuse graphs the runtime is known to fail: portable mean on channels_last data."""
    program = _program(model)
    plan = next((p for p in program.plans if p.name == "forward"), program.plans[0])
    orders: dict[int, tuple[int, ...]] | None = None
    for chain in plan.chains:
        for ins in chain:
            if ins.kind != "kernel" or ins.target is None:
                continue
            if plan.operators[ins.target].qualified_name != "aten::mean.out":
                continue
            orders = orders if orders is not None else value_dim_orders(model.path, plan.name)
            if any(order == CHANNELS_LAST for order in _arg_dim_orders(orders, ins.args)):
                raise ModelError(
                    f"{model.path.name} keeps mean as portable aten::mean.out on "
                    "channels_last data: Method::execute() fails with InvalidArgument on "
                    "both providers, and the ns qualifier rejects channels_last mean",
                    "export the mean on contiguous tensors (torch.contiguous_format), or "
                    "lower it to cortex_m_ns::quantized_mean (--kernel-provider ns, "
                    "contiguous input)",
                )


def _arg_dim_orders(
    orders: dict[int, tuple[int, ...]], args: tuple[int, ...]
) -> list[tuple[int, ...]]:
    """Dim orders of the tensor values an instruction passes."""
    return [orders[a] for a in args if a in orders]
