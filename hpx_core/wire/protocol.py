"""The wire protocol's vocabulary: record types and their fields, version 2.

This table is the single definition the parser checks records against; docs/wire-protocol.md
documents it and a test keeps the two (and the firmware emitter) in agreement.

A record is one line::

    @HPX <seq> <TYPE>[ <key>=<value>]... *<crc32>\\n

``seq`` counts records from 0 without gaps; ``crc32`` (8 lowercase hex digits, CRC-32/IEEE as
zlib computes it) covers every byte before `` *``. Values are decimal integers (``int``),
signed decimal integers (``sint``), ``0x`` + 8 hex digits (``hex32``), hex byte strings
(``bytes``) or percent-encoded text (``text``).
"""

from __future__ import annotations

from typing import Literal

import attrs

VERSION = 2
PREFIX = b"@HPX "

FieldKind = Literal["int", "sint", "hex32", "bytes", "text"]


@attrs.frozen
class FieldSpec:
    name: str
    kind: FieldKind
    doc: str


@attrs.frozen
class RecordSpec:
    type: str
    doc: str
    fields: tuple[FieldSpec, ...]

    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


def _f(name: str, kind: FieldKind, doc: str) -> FieldSpec:
    return FieldSpec(name, kind, doc)


_FAULT_REGS = ("cfsr", "hfsr", "mmfar", "bfar")

RECORDS: dict[str, RecordSpec] = {
    spec.type: spec
    for spec in (
        RecordSpec(
            "START",
            "first record: who is measuring what",
            (
                _f("v", "int", "protocol version"),
                _f("board", "text", "board name"),
                _f("engine", "text", "engine name"),
                _f("counter", "text", "counter backend"),
                _f("units", "text", "units of every raw count"),
                _f("iterations", "int", "measured inferences per pass"),
                _f("warmup", "int", "unmeasured warm-up inferences"),
                _f("max_layers", "int", "layer slots the harness has"),
            ),
        ),
        RecordSpec(
            "CAL",
            "cost of an empty begin/end pair, measured at start-up",
            (
                _f("repeats", "int", "pairs measured"),
                _f("min", "int", "smallest pair count"),
                _f("max", "int", "largest pair count"),
                _f("sum", "int", "sum of all pair counts"),
            ),
        ),
        RecordSpec(
            "LAYERINFO",
            "a layer's name and operator, once per layer",
            (
                _f("idx", "int", "layer index"),
                _f("name", "text", "layer name"),
                _f("op", "text", "operator name"),
            ),
        ),
        RecordSpec(
            "WHOLE",
            "one uninstrumented whole inference",
            (
                _f("iter", "int", "iteration"),
                _f("raw", "int", "count, including one calibrated pair"),
            ),
        ),
        RecordSpec(
            "LAYER",
            "one layer in one instrumented inference",
            (
                _f("iter", "int", "iteration"),
                _f("idx", "int", "layer index"),
                _f("raw", "int", "count, including one calibrated pair per call"),
                _f("calls", "int", "times the layer was entered"),
            ),
        ),
        RecordSpec(
            "EVENTINFO",
            "an event counter of this pass (PMU boards), after CAL",
            (
                _f("ev", "int", "event slot"),
                _f("number", "int", "Arm PMU event number"),
                _f("cal_sum", "int", "the event over all calibration pairs"),
            ),
        ),
        RecordSpec(
            "LAYEREV",
            "one event of one layer in one instrumented inference, after its LAYER",
            (
                _f("iter", "int", "iteration"),
                _f("idx", "int", "layer index"),
                _f("ev", "int", "event slot"),
                _f("raw", "int", "events, including one calibrated pair per call"),
                _f("ovf", "int", "1 when the 32-bit event counter wrapped in the layer"),
            ),
        ),
        RecordSpec(
            "SUMMARY",
            "after the measured passes: what was sent, for a completeness check",
            (
                _f("whole", "int", "WHOLE records sent"),
                _f("layer_records", "int", "LAYER records sent"),
            ),
        ),
        RecordSpec(
            "LAYERSUM",
            "one output tensor of one layer in the uncounted check pass (--check-layers)",
            (
                _f("idx", "int", "layer index"),
                _f("tensor", "int", "which output of the layer"),
                _f("dtype", "text", "element type (int8, uint8, int16, int32, float32, ...)"),
                _f("count", "int", "elements"),
                _f("crc", "hex32", "CRC-32 of the tensor's bytes"),
                _f("min", "sint", "smallest element (float32: Q16.16, rounded)"),
                _f("max", "sint", "largest element (float32: Q16.16, rounded)"),
                _f("sum", "sint", "sum of the elements (float32: of the Q16.16 values)"),
            ),
        ),
        RecordSpec(
            "TENSOR",
            "a chunk of a layer's tensor whose CRC differs from the host's, after its LAYERSUMs",
            (
                _f("idx", "int", "layer index"),
                _f("role", "text", "out (an output) or in (an input, as the layer read it)"),
                _f("tensor", "int", "which output or input of the layer"),
                _f("offset", "int", "byte offset of this chunk"),
                _f("size", "int", "tensor size in bytes"),
                _f("hex", "bytes", "chunk bytes"),
            ),
        ),
        RecordSpec(
            "CHECKEND",
            "after the check pass: what it sent, for a completeness check",
            (
                _f("sums", "int", "LAYERSUM records sent"),
                _f("chunks", "int", "TENSOR records sent"),
                _f("skipped", "int", "tensors not sent: over the dump limit"),
            ),
        ),
        RecordSpec(
            "OUTPUT",
            "a chunk of an output tensor (after the last inference)",
            (
                _f("tensor", "int", "output index"),
                _f("offset", "int", "byte offset of this chunk"),
                _f("size", "int", "tensor size in bytes"),
                _f("hex", "bytes", "chunk bytes"),
            ),
        ),
        RecordSpec(
            "METRIC",
            "a named engine value (e.g. arena bytes used)",
            (
                _f("name", "text", "metric name"),
                _f("value", "int", "value"),
            ),
        ),
        RecordSpec(
            "FILE",
            "a chunk of a file the engine hands to the bundle (e.g. an ETDump)",
            (
                _f("name", "text", "file name"),
                _f("offset", "int", "byte offset of this chunk"),
                _f("hex", "bytes", "chunk bytes"),
            ),
        ),
        RecordSpec(
            "FILEEND",
            "a file is complete",
            (
                _f("name", "text", "file name"),
                _f("size", "int", "file size in bytes"),
            ),
        ),
        RecordSpec(
            "ERROR",
            "the harness or engine failed; END follows",
            (
                _f("stage", "text", "where: init, describe, prepare_input, invoke, ..."),
                _f("code", "int", "error code (engine codes passed through)"),
            ),
        ),
        RecordSpec(
            "FAULT",
            "a CPU fault or unexpected exception; END follows",
            (
                _f("exc", "int", "exception number (3 = HardFault)"),
                _f("pc", "hex32", "stacked program counter"),
                _f("lr", "hex32", "stacked link register"),
                _f("xpsr", "hex32", "stacked xPSR"),
                *(_f(reg, "hex32", f"SCB {reg.upper()}") for reg in _FAULT_REGS),
                _f("exc_return", "hex32", "EXC_RETURN of the fault entry"),
                _f("sp", "hex32", "address of the exception frame"),
            ),
        ),
        RecordSpec(
            "END",
            "last record",
            (_f("status", "int", "the firmware's exit status (0 = complete)"),),
        ),
    )
}

# Exit statuses of the harness (firmware_templates/harness/hpx_harness.h).
EXIT_STATUS = {0: "complete", 1: "engine error", 2: "harness error", 3: "fault"}
