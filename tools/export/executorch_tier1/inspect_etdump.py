"""ExecuTorch's own Inspector reads the ETDump of an hpx bundle (run in the Tier-1 export venv).

Checks, against ``tier1_manifest.json``: the bundle's ``Execute`` block has one
``OPERATOR_CALL`` event per kernel call of the program, at the same instruction ids, each with
its ``native_call_<operator>`` event and one logged output tensor that is not the zero-filled
stand-in Inspector makes when it has no debug buffer; the program output Inspector reads from
the debug buffer is the exporter's reference output. Prints the events as Inspector sees them.
Exit status 0 only when every check holds.

    python inspect_etdump.py --bundle BUNDLE --manifest tier1_manifest.json --program tier1_arm

needs ``flatc`` (the executorch wheel's) on PATH or in FLATC_EXECUTABLE.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from executorch.devtools import Inspector
from executorch.devtools.inspector import TimeScale


def _kernel_calls(manifest: dict[str, Any], program: str) -> list[dict[str, Any]]:
    model, provider = program.rsplit("_", 1)
    entry = manifest["models"][model]["programs"][provider]
    return [i for i in entry["instructions"] if i["kind"] == "KernelCall"]


def _native_name(operator: str) -> str:
    """``cortex_m::quantize_per_tensor.out`` -> ``native_call_quantize_per_tensor.out``."""
    return "native_call_" + operator.split("::", 1)[1]


def check(bundle: Path, manifest: dict[str, Any], program: str, reference: Path) -> list[str]:
    inspector = Inspector(etdump_path=str(bundle / "etdump.etdp"), etrecord=None,
                          debug_buffer_path=str(bundle / "etdump.debug.bin"),
                          source_time_scale=TimeScale.CYCLES,
                          target_time_scale=TimeScale.CYCLES)
    problems: list[str] = []
    blocks = {block.name: block for block in inspector.event_blocks}
    execute = blocks["Execute"]
    calls = _kernel_calls(manifest, program)
    events = execute.events
    operator_calls = [e for e in events if e.name == "OPERATOR_CALL"]
    print(f"{bundle.name}: blocks {list(blocks)}; Execute has {len(events)} events, "
          f"{len(operator_calls)} OPERATOR_CALL; the program has {len(calls)} kernel calls")
    if len(operator_calls) != len(calls):
        problems.append(f"{len(operator_calls)} OPERATOR_CALL events for {len(calls)} kernel "
                        "calls")
    for call, event in zip(calls, operator_calls, strict=False):
        index = int(call["id"].split("i", 1)[1])
        native = [e for e in events
                  if e._instruction_id == index and e.name.startswith("native_call_")]
        tensors = [t for t in event.debug_data or [] if hasattr(t, "shape")]
        names = [e.name for e in native]
        print(f"  {call['id']:>5} {call['operator']:38} {names} perf={event.perf_data.raw} "
              f"output={[(tuple(t.shape), str(t.dtype)) for t in tensors]}")
        if event._instruction_id != index:
            problems.append(f"{call['id']}: OPERATOR_CALL has instruction {event._instruction_id}")
        if names != [_native_name(call["operator"])]:
            problems.append(f"{call['id']}: events {names} for {call['operator']}")
        if len(tensors) != 1 or not bool(tensors[0].ne(0).any()):
            problems.append(f"{call['id']}: no logged output (or a zero-filled stand-in)")
    problems += _output_problems(execute, reference)
    return problems


def _output_problems(execute: Any, reference: Path) -> list[str]:
    """Inspector views a logged tensor's bytes in memory order under its logical shape (it
    applies no strides), so the channels_last output is compared in NHWC order."""
    (output,) = execute.run_output
    device = output.numpy().ravel()
    shape = tuple(output.shape)
    host = np.fromfile(reference, dtype=np.float32).reshape(shape).transpose(0, 2, 3, 1).ravel()
    same = device.dtype == host.dtype and np.array_equal(device, host)
    print(f"  program output {shape} {output.dtype}: "
          f"{'equals' if same else 'differs from'} {reference.name}")
    return [] if same else [f"the program output differs from {reference.name}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--program", default="tier1_arm")
    args = parser.parse_args(argv)
    manifest = json.loads(args.manifest.read_text(encoding="utf-8"))
    model, provider = args.program.rsplit("_", 1)
    reference = args.manifest.parent / manifest["models"][model]["programs"][provider][
        "reference_output"]
    problems = check(args.bundle, manifest, args.program, reference)
    for problem in problems:
        print(f"FAIL {problem}")
    print("Inspector read the ETDump: every check holds" if not problems else
          f"{len(problems)} checks failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
