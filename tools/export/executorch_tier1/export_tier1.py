"""Export the Tier-1 programs for the pinned ExecuTorch runtime, for both kernel providers.

The pinned runtime (nsx-executorch at its baseline commit, ExecuTorch v1.3.0) runs only programs
emitted by its own release, so this tool exports with ExecuTorch 1.3.x through nsx-executorch's
``aot/nsx_cortex_m`` package taken from hpx's source cache at the same pin. Outputs, for each
model (``tier1``, ``tier1mean``) and provider (``arm``, ``ns``):

- ``<model>_<provider>.pte`` and its sidecar ``<model>_<provider>.pte.json`` (schema
  ``nsx-executorch.pte-manifest/1``, plus an ``exporter`` record with the package versions);
- one ``tier1_manifest.json``: per model and provider the operator table and the instruction
  list with stable ids (``c<chain>i<instruction>``), which is what lets two different programs
  of one model (arm vs ns) be compared operator by operator.

Deterministic (seed 20260819, fixed calibration data, nothing time-dependent): two runs give
identical bytes. Run it in its own environment (see README.md), never in hpx's.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/export: tier1_models
from tier1_models import Tier1, Tier1Mean

SEED = 20260819
CALIBRATION_SAMPLES = 8
INPUT_DIVISOR = 128.0
MANIFEST_SCHEMA = "hpx.executorch-tier1-manifest/1"
PROVIDERS = ("arm", "ns")
DEFAULT_OUT = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "executorch_tier1"


def install_dimname_shim() -> None:
    """ExecuTorch 1.3.x names ``aten.transpose.Dimname``, which torch 2.13 removed.

    Its Arm quantizer only lists the overload in a table, so declaring the schema is enough.
    Named dimensions are passed as ``str`` (the schema language has no Dimname type any more).
    """
    try:
        torch.ops.aten.transpose.Dimname  # noqa: B018
    except AttributeError:
        library = torch.library.Library("aten", "FRAGMENT")
        library.define("transpose.Dimname(Tensor(a) self, str dim0, str dim1) -> Tensor(a)")
        _KEEP.append(library)


_KEEP: list[Any] = []


@dataclass(frozen=True)
class Spec:
    name: str
    factory: Callable[[], torch.nn.Module]
    input_shape: tuple[int, ...]
    channels_last: bool
    description: str


SPECS = (
    Spec("tier1", Tier1, (1, 16, 32, 32), True,
         "channels_last; conv3x3(16->16) -> hardswish -> conv3x3(16->16) -> leaky_relu(0.1) "
         "-> sub(block input) -> relu"),
    Spec("tier1mean", Tier1Mean, (1, 16, 32, 32), False, "contiguous; mean over H,W keepdim"),
    # The known-unrunnable case: mean on channels_last stays a portable aten::mean.out with
    # either provider (the ns qualifier rejects it), and execute() fails with InvalidArgument.
    Spec("tier1mean_cl", Tier1Mean, (1, 16, 32, 32), True,
         "channels_last; mean over H,W keepdim (known unrunnable: portable mean on "
         "channels_last)"),
)


def _layout(t: torch.Tensor, channels_last: bool) -> torch.Tensor:
    return t.to(memory_format=torch.channels_last) if channels_last else t.contiguous()


def _calibration(spec: Spec) -> list[tuple[torch.Tensor]]:
    """Uniform noise in [-0.5, 0.5) plus per-channel offsets spread over [-0.5, 0.5)."""
    gen = torch.Generator().manual_seed(SEED)
    channels = spec.input_shape[1]
    bias = (torch.arange(channels) * 128 // channels - 64).to(torch.float32) / INPUT_DIVISOR
    bias = bias.reshape((1, channels) + (1,) * (len(spec.input_shape) - 2))
    return [(_layout(torch.rand(spec.input_shape, generator=gen) - 0.5 + bias,
                     spec.channels_last),) for _ in range(CALIBRATION_SAMPLES)]


def reference_input(spec: Spec) -> torch.Tensor:
    """The input hpx feeds on device: int8 codes of a fixed integer hash of the flat NCHW index
    plus per-channel offsets, divided by 128 (exact in float32); no random generator."""
    count = 1
    for dim in spec.input_shape:
        count *= dim
    index = torch.arange(count, dtype=torch.int64)
    noise = (index * 1103515245 + 12345) // 65536 % 128 - 64
    channels = spec.input_shape[1]
    inner = count // (spec.input_shape[0] * channels)
    channel = (index // inner) % channels
    codes = noise + channel * 128 // channels - 64
    return _layout((codes.to(torch.float32) / INPUT_DIVISOR).reshape(spec.input_shape),
                   spec.channels_last)


def _operator_name(op: Any) -> str:
    return f"{op.name}.{op.overload}" if op.overload else op.name


def program_record(program: Any) -> dict[str, Any]:
    """Operator table and instruction list (ids ``c<chain>i<index>``) of the forward plan."""
    plan = next(p for p in program.execution_plan if p.name == "forward")
    operators = [_operator_name(op) for op in plan.operators]
    instructions = []
    for c, chain in enumerate(plan.chains):
        for i, instruction in enumerate(chain.instructions):
            args = instruction.instr_args
            kind = type(args).__name__
            entry: dict[str, Any] = {"id": f"c{c}i{i}", "kind": kind}
            if kind == "KernelCall":
                entry["operator"] = operators[args.op_index]
                entry["arg_count"] = len(args.args)
            instructions.append(entry)
    return {"operators": operators, "instructions": instructions,
            "non_const_buffer_sizes": [int(s) for s in plan.non_const_buffer_sizes]}


def exporter_versions() -> dict[str, str]:
    return {name: importlib.metadata.version(name) for name in ("executorch", "torch", "torchao")}


def export_one(spec: Spec, provider: str, out_dir: Path, export: Any) -> dict[str, Any]:
    torch.manual_seed(SEED)
    model = spec.factory().eval()
    model.requires_grad_(False)
    if spec.channels_last:
        model = model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    calibration = _calibration(spec)
    # torch 2.13 puts a guards node into .module() that the quantizer rejects: hand the
    # exporter the module without it (it exports it again itself).
    captured = torch.export.export(model, calibration[0], strict=True).module(check_guards=False)
    result = export(captured, calibration[0], kernel_provider=provider,
                    calibration_samples=calibration)
    path = out_dir / f"{spec.name}_{provider}.pte"
    result.write_pte(str(path), sidecar=True)
    sidecar = Path(f"{path}.json")
    doc = json.loads(sidecar.read_text(encoding="utf-8"))
    doc["exporter"] = exporter_versions()
    sidecar.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    data = path.read_bytes()
    # Host reference: the lowered edge graph run in PyTorch (the PyPI runtime has no cortex_m
    # kernels); NCHW logical order, float32.
    with torch.no_grad():
        output = result.edge_module(reference_input(spec))
    reference = out_dir / f"{spec.name}_{provider}.output.f32"
    reference.write_bytes(output.contiguous().to(torch.float32).numpy().tobytes())
    program = result.executorch_program._emitter_output.program
    return {"file": path.name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
            "kernel_provider": provider, "reference_output": reference.name,
            "output_shape": list(output.shape), **program_record(program)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nsx-executorch", type=Path, required=True,
                        help="nsx-executorch checkout at the pinned commit (hpx's source cache)")
    parser.add_argument("--kernel-provider", choices=PROVIDERS, action="append",
                        help="provider(s) to export for (default: both)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    install_dimname_shim()
    sys.path.insert(0, str(args.nsx_executorch / "aot"))
    from nsx_cortex_m.export import export  # the pinned AOT package, not a PyPI one

    args.out.mkdir(parents=True, exist_ok=True)
    providers = tuple(args.kernel_provider or PROVIDERS)
    models: dict[str, Any] = {}
    for spec in SPECS:
        models[spec.name] = {"description": spec.description,
                             "input_shape": list(spec.input_shape),
                             "programs": {p: export_one(spec, p, args.out, export)
                                          for p in providers}}
    manifest = {"schema": MANIFEST_SCHEMA, "seed": SEED, "exporter": exporter_versions(),
                "models": models}
    (args.out / "tier1_manifest.json").write_text(json.dumps(manifest, indent=2) + "\n",
                                                  encoding="utf-8")
    print(f"wrote {len(SPECS) * len(providers)} programs and tier1_manifest.json to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
