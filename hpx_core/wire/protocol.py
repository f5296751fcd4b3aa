"""The wire protocol's vocabulary: record types and their fields, version 2.

This table is the single definition the parser checks records against; docs/wire-protocol.md
documents it and a test keeps the two (and the firmware emitter) in agreement.

A record is one line::

    @HPX <seq> <TYPE>[ <key>=<value>]... *<crc32>\\n

``seq`` counts records from 0 without gaps; ``crc32`` (8 lowercase hex digits, CRC-32/IEEE as
zlib computes it) covers every byte before `` *``. Values are unsigned decimal integers
(``int``), signed ones (``i32``, ``i64``), ``0x`` + 8 hex digits (``hex32``), hex byte strings
(``bytes``) or percent-encoded text (``text``). Every field has bounds: a value range for
numbers, a most-bytes for text and bytes; a line is at most :data:`MAX_LINE` bytes.
"""

from __future__ import annotations

from typing import Literal

import attrs

VERSION = 2
PREFIX = b"@HPX "
MAX_LINE = 32_768  # bytes of one line, record or text: two 4 KiB names percent-encoded fit
U32 = 2**32 - 1
U64 = 2**64 - 1
I32 = (-(2**31), 2**31 - 1)
I64 = (-(2**63), 2**63 - 1)
MAX_TEXT = 4_096  # bytes of a decoded text value (layer names come from the model)
OUTPUT_CHUNK = 64  # bytes of one OUTPUT/FILE/TENSOR record (HPX_OUTPUT_CHUNK, HPX_CHECK_CHUNK)

FieldKind = Literal["int", "i32", "i64", "hex32", "bytes", "text"]


def _power(value: int) -> str:
    for bits in (64, 63, 32, 31):
        if value == 2**bits - 1:
            return f"2^{bits}-1"
        if value == -(2**bits):
            return f"-2^{bits}"
    return f"{value:,}"


@attrs.frozen
class FieldSpec:
    """A field: its kind and bounds (the value range of a number, the length of text/bytes)."""

    name: str
    kind: FieldKind
    doc: str
    low: int = 0
    high: int = U64

    def bounds(self) -> str:
        """The bounds as docs/wire-protocol.md writes them."""
        if self.kind in ("text", "bytes"):
            return f"at most {self.high:,} bytes"
        return f"{_power(self.low)} .. {_power(self.high)}"


@attrs.frozen
class RecordSpec:
    type: str
    doc: str
    fields: tuple[FieldSpec, ...]

    def names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


_DEFAULT_BOUNDS: dict[FieldKind, tuple[int, int]] = {
    "int": (0, U64),
    "i32": I32,
    "i64": I64,
    "hex32": (0, U32),
    "bytes": (0, OUTPUT_CHUNK),
    "text": (0, MAX_TEXT),
}


def _f(name: str, kind: FieldKind, doc: str, bounds: tuple[int, int] | None = None) -> FieldSpec:
    low, high = bounds or _DEFAULT_BOUNDS[kind]
    return FieldSpec(name, kind, doc, low, high)


_COUNT = (0, U32)  # a 32-bit firmware counter
_INDEX = (0, 4094)  # a layer slot: the harness has at most 4,095
_TENSORS = (0, 255)  # a layer's inputs or outputs


_FAULT_REGS = ("cfsr", "hfsr", "mmfar", "bfar")
_OUTPUT_CHUNK = (  # an OUTPUT record, and a VOUT record after its sample
    _f("tensor", "int", "output index", _COUNT),
    _f("offset", "int", "byte offset of this chunk", _COUNT),
    _f("size", "int", "tensor size in bytes", _COUNT),
    _f("hex", "bytes", "chunk bytes"),
)

RECORDS: dict[str, RecordSpec] = {
    spec.type: spec
    for spec in (
        RecordSpec(
            "START",
            "first record: who is measuring what",
            (
                _f("v", "int", "protocol version", _COUNT),
                _f("board", "text", "board name"),
                _f("engine", "text", "engine name"),
                _f("counter", "text", "counter backend"),
                _f("units", "text", "units of every raw count"),
                _f("iterations", "int", "measured inferences per pass", (1, U32)),
                _f("warmup", "int", "unmeasured warm-up inferences", _COUNT),
                _f("max_layers", "int", "layer slots the harness has", (1, 4095)),
            ),
        ),
        RecordSpec(
            "CAL",
            "cost of an empty begin/end pair, measured at start-up",
            (
                _f("repeats", "int", "pairs measured", (1, U32)),
                _f("min", "int", "smallest pair count"),
                _f("max", "int", "largest pair count"),
                _f("sum", "int", "sum of all pair counts"),
            ),
        ),
        RecordSpec(
            "LAYERINFO",
            "a layer's name and operator, once per layer",
            (
                _f("idx", "int", "layer index", _INDEX),
                _f("name", "text", "layer name"),
                _f("op", "text", "operator name"),
            ),
        ),
        RecordSpec(
            "WHOLE",
            "one uninstrumented whole inference",
            (
                _f("iter", "int", "iteration", _COUNT),
                _f("raw", "int", "count, including one calibrated pair"),
            ),
        ),
        RecordSpec(
            "LAYER",
            "one layer in one instrumented inference",
            (
                _f("iter", "int", "iteration", _COUNT),
                _f("idx", "int", "layer index", _INDEX),
                _f("raw", "int", "count, including one calibrated pair per call"),
                _f("calls", "int", "times the layer was entered", (1, U32)),
            ),
        ),
        RecordSpec(
            "EVENTINFO",
            "an event counter of this pass (PMU boards), after CAL",
            (
                _f("ev", "int", "event slot", (0, 31)),
                _f("number", "int", "Arm PMU event number", (0, 0xFFFF)),
                _f("cal_sum", "int", "the event over all calibration pairs"),
            ),
        ),
        RecordSpec(
            "LAYEREV",
            "one event of one layer in one instrumented inference, after its LAYER",
            (
                _f("iter", "int", "iteration", _COUNT),
                _f("idx", "int", "layer index", _INDEX),
                _f("ev", "int", "event slot", (0, 31)),
                _f("raw", "int", "events, including one calibrated pair per call"),
                _f("ovf", "int", "1 when the 32-bit event counter wrapped in the layer", (0, 1)),
            ),
        ),
        RecordSpec(
            "SUMMARY",
            "after the measured passes: what was sent, for a completeness check",
            (
                _f("whole", "int", "WHOLE records sent", _COUNT),
                _f("layer_records", "int", "LAYER records sent", _COUNT),
            ),
        ),
        RecordSpec(
            "MEMLAYER",
            "one layer in the uncounted memory pass: its stack depth",
            (
                _f("idx", "int", "layer index", _INDEX),
                _f("stack", "int", "bytes below the stack's top at the layer's deepest point",
                   _COUNT),
                _f("floor", "int", "the depth the harness's own frames hide (at most)", _COUNT),
            ),
        ),
        RecordSpec(
            "MEMUSE",
            "an engine's memory figure for one layer in the memory pass (after its MEMLAYER)",
            (
                _f("idx", "int", "layer index", _INDEX),
                _f("name", "text", "what it measures (arena, temp, ...)", (1, 64)),
                _f("bytes", "int", "bytes in use"),
            ),
        ),
        RecordSpec(
            "MEMFACT",
            "an engine's or the harness's whole-model memory figure in the memory pass",
            (
                _f("name", "text", "what it measures (arena.size, heap, ...)", (1, 64)),
                _f("bytes", "int", "bytes"),
            ),
        ),
        RecordSpec(
            "MEMEND",
            "after the memory pass: the whole stack figures and what it sent",
            (
                _f("stack", "int", "bytes below the stack's top at the inference's deepest point",
                   _COUNT),
                _f("base", "int", "bytes below the stack's top where the harness calls the engine",
                   _COUNT),
                _f("size", "int", "bytes of the stack", _COUNT),
                _f("layers", "int", "MEMLAYER records sent", _COUNT),
                _f("uses", "int", "MEMUSE records sent", _COUNT),
                _f("facts", "int", "MEMFACT records sent", _COUNT),
            ),
        ),
        RecordSpec(
            "LAYERSUM",
            "one output tensor of one layer in the uncounted check pass (--check-layers)",
            (
                _f("idx", "int", "layer index", _INDEX),
                _f("tensor", "int", "which output of the layer", _TENSORS),
                _f("dtype", "text", "element type (int8, uint8, int16, int32, float32, ...)",
                   (0, 16)),
                _f("count", "int", "elements", _COUNT),
                _f("crc", "hex32", "CRC-32 of the tensor's bytes"),
                _f("min", "i64", "smallest element (float32: Q16.16, rounded)"),
                _f("max", "i64", "largest element (float32: Q16.16, rounded)"),
                _f("sum", "i64", "sum of the elements (float32: of the Q16.16 values)"),
            ),
        ),
        RecordSpec(
            "TENSOR",
            "a chunk of a layer's tensor whose CRC differs from the host's, after its LAYERSUMs",
            (
                _f("idx", "int", "layer index", _INDEX),
                _f("role", "text", "out (an output) or in (an input, as the layer read it)",
                   (0, 3)),
                _f("tensor", "int", "which output or input of the layer", _TENSORS),
                _f("offset", "int", "byte offset of this chunk", _COUNT),
                _f("size", "int", "tensor size in bytes", _COUNT),
                _f("hex", "bytes", "chunk bytes"),
            ),
        ),
        RecordSpec(
            "CHECKEND",
            "after the check pass: what it sent, for a completeness check",
            (
                _f("sums", "int", "LAYERSUM records sent", _COUNT),
                _f("chunks", "int", "TENSOR records sent", _COUNT),
                _f("skipped", "int", "tensors not sent: over the dump limit", _COUNT),
            ),
        ),
        RecordSpec(
            "POWER",
            "the power pass begins: the host records, sends its go and lets the probe go",
            (_f("iterations", "int", "whole and instrumented inferences each, in windows",
                _COUNT),),
        ),
        RecordSpec(
            "POWEREND",
            "after the power pass: the windows it marked (0: no go came, the pass was skipped)",
            (_f("windows", "int", "energy windows marked on the power GPIOs", _COUNT),),
        ),
        RecordSpec(
            "VALIDATE",
            "the validation pass begins: the samples the host's window holds (0: none)",
            (
                _f("samples", "int", "samples in the window", _COUNT),
                _f("first", "int", "the data set's index of the window's first sample", _COUNT),
            ),
        ),
        RecordSpec(
            "VOUT",
            "a chunk of an output tensor of one validation sample",
            (_f("sample", "int", "the data set's index of the sample", _COUNT), *_OUTPUT_CHUNK),
        ),
        RecordSpec(
            "VALIDEND",
            "after the validation pass: the samples run and the VOUT records sent",
            (
                _f("samples", "int", "samples run", _COUNT),
                _f("records", "int", "VOUT records sent", _COUNT),
            ),
        ),
        RecordSpec(
            "OUTPUT",
            "a chunk of an output tensor (after the last inference)",
            _OUTPUT_CHUNK,
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
                _f("name", "text", "file name", (1, 255)),
                _f("offset", "int", "byte offset of this chunk", _COUNT),
                _f("hex", "bytes", "chunk bytes"),
            ),
        ),
        RecordSpec(
            "FILEEND",
            "a file is complete",
            (
                _f("name", "text", "file name", (1, 255)),
                _f("size", "int", "file size in bytes", _COUNT),
            ),
        ),
        RecordSpec(
            "ERROR",
            "the harness or engine failed; END follows",
            (
                _f("stage", "text", "where: init, describe, prepare_input, invoke, ..."),
                _f("code", "i32", "error code (engine codes passed through)"),
            ),
        ),
        RecordSpec(
            "FAULT",
            "a CPU fault or unexpected exception; END follows",
            (
                _f("exc", "int", "exception number (3 = HardFault)", (0, 511)),
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
            (_f("status", "int", "the firmware's exit status (0 = complete)", (0, 3)),),
        ),
    )
}

# Exit statuses of the harness (firmware_templates/harness/hpx_harness.h).
EXIT_STATUS = {0: "complete", 1: "engine error", 2: "harness error", 3: "fault"}
