"""Export small int8 Cortex-M ExecuTorch programs as test fixtures.

The programs are made by the stock exporter (executorch's Cortex-M flow, as in its
``backends/arm/scripts/aot_arm_compiler.py``), so hpx's torch-free PTE reader can be tested
against real files. What each program contains is recorded in ``pte_fixtures.json``, taken from
executorch's own emitted ``Program`` object at export time, never from hpx's reader: the tests
compare the two.

Deterministic: fixed seed, fixed calibration data, no timestamps; two runs give identical bytes.
Run it inside the export environment (see README.md), not in hpx's own environment.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import io
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tools/export: tier1_models
# Importing the pass manager also registers the cortex_m:: operators (importing
# executorch.backends.cortex_m.ops.operators first fails on a circular import in 1.5.1).
from executorch.backends.cortex_m.edge_compile_config import cortex_m_edge_compile_config
from executorch.backends.cortex_m.passes.cortex_m_pass_manager import CortexMPassManager
from executorch.backends.cortex_m.quantizer.quantizer import CortexMQuantizer
from executorch.backends.cortex_m.target_config import CortexMTargetConfig
from executorch.exir import ExecutorchBackendConfig, to_edge_transform_and_lower
from executorch.exir import schema as et_schema
from executorch.exir._serialize._flatbuffer_program import _flatbuffer_to_program
from executorch.exir._serialize._program import _get_extended_header
from executorch.exir.tensor import get_scalar_type
from numpy.typing import NDArray
from tier1_models import Tier1, Tier1Mean
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

SEED = 20260819
TARGET = "cortex-m55"
CALIBRATION_SAMPLES = 8
INPUT_DIVISOR = 128.0
RECORD_SCHEMA = "hpx.pte-fixtures/1"
DEFAULT_OUT = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "pte"


class SingleConv(torch.nn.Module):
    """One conv3x3 (3 -> 8 channels, stride 1, padding 1): the smallest quantized conv."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.conv(x)
        return out


@dataclass(frozen=True)
class Spec:
    """One fixture: a model factory, its input shape and whether the flow runs channels_last."""

    name: str
    factory: Callable[[], torch.nn.Module]
    input_shape: tuple[int, ...]
    channels_last: bool
    description: str


SPECS: tuple[Spec, ...] = (
    Spec(
        "tier1",
        Tier1,
        (1, 16, 32, 32),
        True,
        "channels_last; conv3x3(16->16) -> hardswish -> conv3x3(16->16) -> leaky_relu(0.1) "
        "-> sub(block input) -> relu",
    ),
    Spec("tier1mean", Tier1Mean, (1, 16, 32, 32), False, "contiguous; mean over H,W keepdim"),
    Spec("conv", SingleConv, (1, 3, 8, 8), True, "channels_last; conv3x3(3->8, padding 1)"),
)


def _layout(t: torch.Tensor, channels_last: bool) -> torch.Tensor:
    return t.to(memory_format=torch.channels_last) if channels_last else t.contiguous()


def _channel_bias(shape: tuple[int, ...]) -> NDArray[np.int64]:
    """Per-channel offsets in int8 code units, spread over [-64, 64) across the channels.

    Without them every channel averages to about zero and a mean over H,W says little.
    """
    channels = shape[1]
    bias = np.arange(channels, dtype=np.int64) * 128 // channels - 64
    return bias.reshape((1, channels) + (1,) * (len(shape) - 2))


def _inputs(spec: Spec, gen: torch.Generator, count: int) -> list[torch.Tensor]:
    """Calibration samples: uniform noise in [-0.5, 0.5) plus the channel offsets."""
    bias = torch.from_numpy(_channel_bias(spec.input_shape)).to(torch.float32) / INPUT_DIVISOR
    return [
        _layout(torch.rand(spec.input_shape, generator=gen) - 0.5 + bias, spec.channels_last)
        for _ in range(count)
    ]


def reference_codes(shape: tuple[int, ...]) -> NDArray[np.int8]:
    """Reference input codes: a fixed integer hash of the flat NCHW index plus channel offsets.

    The float input is ``codes / 128`` (exact in float32), so any tool can rebuild it from the
    committed int8 file without torch or a random generator.
    """
    index = np.arange(int(np.prod(shape)), dtype=np.int64)
    noise = ((index * 1103515245 + 12345) // 65536 % 128 - 64).reshape(shape)
    return (noise + _channel_bias(shape)).astype(np.int8)


@dataclass(frozen=True)
class Lowered:
    """The program and its host reference output, as int8 codes of the final dequantize."""

    program: Any
    output_codes: NDArray[np.int8]
    output_scale: float
    output_zero_point: int


def _output_qparams(edge: Any) -> tuple[float, int]:
    """Scale and zero point of the dequantize that produces the (single) program output."""
    graph = edge.exported_program().graph_module.graph
    (source,) = next(n for n in graph.nodes if n.op == "output").args[0]
    if "dequantize_per_tensor" not in str(source.target):
        raise RuntimeError(f"output is made by {source.target}, not by a dequantize")
    return float(source.args[1]), int(source.args[2])


def _to_codes(output: torch.Tensor, scale: float, zero_point: int) -> NDArray[np.int8]:
    """Recover the int8 codes of a dequantized output and check the round trip is exact."""
    codes = torch.clamp(torch.round(output / scale) + zero_point, -128, 127).to(torch.int8)
    rebuilt = (codes.to(torch.float32) - zero_point) * torch.tensor(scale, dtype=torch.float32)
    if not torch.equal(rebuilt, output):
        raise RuntimeError("reference output is not an exact dequantized int8 tensor")
    return codes.contiguous().numpy()


def lower(spec: Spec) -> Lowered:
    """Quantize and lower one model through the Cortex-M flow (as aot_arm_compiler does).

    The PyPI runtime has no cortex_m:: kernels, so the host reference output comes from running
    the lowered edge graph (its cortex_m:: ops have Python implementations), before
    ``to_executorch`` rewrites that graph to out-variants.
    """
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = spec.factory().eval()
    model.requires_grad_(False)
    if spec.channels_last:
        model = model.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    calibration = _inputs(spec, gen, CALIBRATION_SAMPLES)
    codes = torch.from_numpy(reference_codes(spec.input_shape))
    reference_input = _layout(codes.to(torch.float32) / INPUT_DIVISOR, spec.channels_last)
    example = (calibration[0],)

    # torch 2.13 inserts a guards node into .module() that the quantizer rejects.
    captured = torch.export.export(model, example, strict=True).module(check_guards=False)
    prepared = prepare_pt2e(captured, CortexMQuantizer())
    for sample in calibration:
        prepared(sample)
    quantized = convert_pt2e(prepared)
    exported = torch.export.export(quantized, example, strict=True)

    edge = to_edge_transform_and_lower(exported, compile_config=cortex_m_edge_compile_config())
    target = CortexMTargetConfig.from_target_string(TARGET)
    edge._edge_programs["forward"] = CortexMPassManager(
        edge.exported_program(), target_config=target
    ).transform()
    scale, zero_point = _output_qparams(edge)
    with torch.no_grad():
        output = edge.exported_program().module()(reference_input)
    program = edge.to_executorch(ExecutorchBackendConfig(extract_delegate_segments=False))
    return Lowered(program, _to_codes(output, scale, zero_point), scale, zero_point)


def _tensor_record(plan: et_schema.ExecutionPlan, index: int) -> dict[str, Any]:
    value = plan.values[index].val
    if not isinstance(value, et_schema.Tensor):
        return {"value_index": index, "kind": type(value).__name__}
    dtype = get_scalar_type(value.scalar_type)
    numel = int(np.prod(value.sizes)) if value.sizes else 1
    return {
        "value_index": index,
        "kind": "Tensor",
        "scalar_type": value.scalar_type.name,
        "sizes": list(value.sizes),
        "dim_order": list(value.dim_order),
        "size_bytes": numel * dtype.itemsize,
    }


def _instruction_record(instruction: et_schema.Instruction) -> dict[str, Any]:
    args = instruction.instr_args
    record: dict[str, Any] = {"kind": type(args).__name__}
    if isinstance(args, et_schema.KernelCall):
        record.update(op_index=args.op_index, arg_count=len(args.args))
    elif isinstance(args, et_schema.DelegateCall):
        record.update(delegate_index=args.delegate_index, arg_count=len(args.args))
    return record


def plan_record(plan: et_schema.ExecutionPlan) -> dict[str, Any]:
    """What one execution plan contains, read from executorch's emitted schema objects."""
    return {
        "name": plan.name,
        "operators": [{"name": op.name, "overload": op.overload} for op in plan.operators],
        "chains": [
            {"instructions": [_instruction_record(i) for i in chain.instructions]}
            for chain in plan.chains
        ],
        "inputs": [_tensor_record(plan, i) for i in plan.inputs],
        "outputs": [_tensor_record(plan, i) for i in plan.outputs],
        "non_const_buffer_sizes": list(plan.non_const_buffer_sizes),
        "value_count": len(plan.values),
        "delegate_count": len(plan.delegates),
    }


def file_record(pte: bytes, emitted: et_schema.Program) -> dict[str, Any]:
    """Segment layout of the written file, parsed by executorch's own deserializer.

    Also checks that the execution plans parsed back from the file equal the emitted ones, so the
    record describes the bytes on disk and not only the exporter's in-memory object.
    """
    header = _get_extended_header(pte)
    program_size = header.program_size if header is not None else len(pte)
    parsed = _flatbuffer_to_program(pte[:program_size])
    parsed_plans = [plan_record(plan) for plan in parsed.execution_plan]
    if parsed_plans != [plan_record(plan) for plan in emitted.execution_plan]:
        raise RuntimeError("execution plans parsed from the file differ from the emitted ones")
    return {
        "file_identifier": pte[4:8].decode("ascii"),
        "program_size": program_size,
        "segment_base_offset": header.segment_base_offset if header is not None else 0,
        "segments": [{"offset": seg.offset, "size": seg.size} for seg in parsed.segments],
        "constant_segment": {
            "segment_index": parsed.constant_segment.segment_index,
            "offsets": list(parsed.constant_segment.offsets),
        },
        "constant_buffer_count": len(parsed.constant_buffer),
    }


def _npy_bytes(array: NDArray[np.int8]) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array), allow_pickle=False)
    return buffer.getvalue()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _input_file(shape: tuple[int, ...]) -> str:
    return "input_" + "x".join(str(d) for d in shape) + ".int8.npy"


def export_one(spec: Spec, out_dir: Path) -> dict[str, Any]:
    """Write <name>.pte, its reference input and output codes; return its JSON record."""
    lowered = lower(spec)
    pte = lowered.program.buffer
    (out_dir / f"{spec.name}.pte").write_bytes(pte)
    input_name = _input_file(spec.input_shape)
    input_npy = _npy_bytes(reference_codes(spec.input_shape))
    output_name = f"{spec.name}.output.int8.npy"
    output_npy = _npy_bytes(lowered.output_codes)
    (out_dir / input_name).write_bytes(input_npy)
    (out_dir / output_name).write_bytes(output_npy)

    emitted = lowered.program.executorch_program
    return {
        "name": spec.name,
        "description": spec.description,
        "file": f"{spec.name}.pte",
        "sha256": _sha256(pte),
        "size_bytes": len(pte),
        "export_layout": "channels_last" if spec.channels_last else "contiguous",
        "program_version": emitted.version,
        "execution_plans": [plan_record(plan) for plan in emitted.execution_plan],
        "layout": file_record(pte, emitted),
        "reference": {
            "source": "host run of the lowered edge graph before to_executorch",
            "order": "NCHW logical order (permute by the tensor's dim_order for its memory)",
            "input": {
                "file": input_name,
                "sha256": _sha256(input_npy),
                "float_value": f"int8 code / {INPUT_DIVISOR}",
            },
            "output": {
                "file": output_name,
                "sha256": _sha256(output_npy),
                "scale": lowered.output_scale,
                "zero_point": lowered.output_zero_point,
                "float_value": "(int8 code - zero_point) * float32(scale)",
            },
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args(argv)
    out_dir: Path = args.out
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.use_deterministic_algorithms(True)
    programs = [export_one(spec, out_dir) for spec in SPECS]
    record = {
        "schema": RECORD_SCHEMA,
        "seed": SEED,
        "target": TARGET,
        "calibration_samples": CALIBRATION_SAMPLES,
        "exporter": {
            "executorch": importlib.metadata.version("executorch"),
            "torch": torch.__version__,
            "torchao": importlib.metadata.version("torchao"),
        },
        "programs": programs,
    }
    text = json.dumps(record, indent=2, sort_keys=True) + "\n"
    (out_dir / "pte_fixtures.json").write_text(text, encoding="utf-8")
    for program in programs:
        print(f"{program['file']}: {program['size_bytes']} bytes sha256 {program['sha256']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
