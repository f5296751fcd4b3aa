"""The shape of every JSON file in a result bundle or a build bundle (schema 1), as JSON Schema.

A bundle is data from outside the process: a user may hand hpx any folder. Each JSON file is
checked against its schema before a single value is used, so a wrong shape ends in one line
naming the file, the field and what is wrong, never in a traceback deep in a reader. Keys a
newer hpx may add are allowed; the keys hpx reads must have the types it reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

BUNDLE_SCHEMA = 1
RESULT_STATUSES = ["complete", "failed"]
STATUSES = [*RESULT_STATUSES, "built", "validated"]
"""``built``: a build bundle (hpx build MODEL); ``validated``: a validation bundle (hpx
validate)."""

_TEXT = {"type": "string"}
_INT = {"type": "integer"}
_INTS = {"type": "array", "items": _INT}
_OBJECT = {"type": "object"}


def _record(required: list[str], properties: dict[str, Any], kind: Any = "object") -> Any:
    return {"type": kind, "required": required, "properties": properties}


_ENTRY = _record(
    ["sha256", "size"],
    {"sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
     "size": {"type": "integer", "minimum": 0}},
)  # fmt: skip
_LAYER = _record(
    ["index", "name", "op", "median"],
    {"index": {"type": "integer", "minimum": 0}, "name": _TEXT, "op": _TEXT,
     "calls": {"type": "integer", "minimum": 0}, "median": _INT, "spread": _INT,
     "samples": _INTS, "raw": _INTS, "events": {"type": "object", "additionalProperties": _INT}},
)  # fmt: skip
_MEASUREMENT = _record(
    ["units", "whole_inference", "layers"],
    {"units": _TEXT, "raw_units": _TEXT, "per_raw_unit": _TEXT,
     "calibration": _record([], {"pair": _INT, "pair_raw_mean": _TEXT}),
     "whole_inference": _record(["samples"], {"median": {"type": ["integer", "null"]},
                                              "samples": _INTS, "raw": _INTS}),
     "layers": {"type": "array", "items": _LAYER}, "layer_sum": _INT},
    ["object", "null"],
)  # fmt: skip
_NULLABLE_TEXT = {"type": ["string", "null"]}
_NULLABLE_INT = {"type": ["integer", "null"]}
_BOOL = {"type": "boolean"}
_MEMORY = _record(
    [],
    {"note": _TEXT,
     "stack": _record(["size", "used", "base"], {"size": _INT, "used": _INT, "base": _INT,
                                                 "engine": _INT, "at_limit": _BOOL}),
     "buffers": {"type": "array", "items": _record(["name"], {
         "name": _TEXT, "configured": _NULLABLE_INT, "planned": _NULLABLE_INT,
         "needed": _NULLABLE_INT, "used": _NULLABLE_INT, "region": _NULLABLE_TEXT,
         "symbol": _NULLABLE_TEXT, "placed": _NULLABLE_INT})},
     "regions": {"type": "array", "items": _record(["name", "length", "used"], {
         "name": _TEXT, "length": _INT, "used": _INT,
         "buffers": {"type": "array", "items": _record(["symbol", "what", "size"], {
             "symbol": _TEXT, "what": _TEXT, "size": _INT})}})},
     "heap": _record([], {"linked": _BOOL, "used": _NULLABLE_INT, "inference": _NULLABLE_INT}),
     "facts": {"type": "object", "additionalProperties": _INT},
     "layers": {"type": "array", "items": _record(["index", "stack"], {
         "index": _INT, "name": _TEXT, "op": _TEXT, "stack": _INT, "stack_at_most": _BOOL,
         "uses": {"type": "object", "additionalProperties": _INT}})}},
)  # fmt: skip
_NUMBER = {"type": "number"}
_NUMBERS = {"type": "array", "items": _NUMBER}
_ENERGY = _record(
    [],
    {"note": _TEXT, "issue": _TEXT, "hint": _TEXT,
     "per_inference_uj": _NUMBERS, "median_uj": _NUMBER, "spread_uj": _NUMBER,
     "mean_power_mw": _NUMBER, "idle_floor_mw": {"type": ["number", "null"]},
     "window_ms": _NUMBERS, "sample_rate": _INT, "samples": _INT, "probe": _TEXT,
     "instrument": _TEXT, "inputs": _INTS, "supply": _NULLABLE_TEXT,
     "layers": {"type": "array", "items": _record(["index", "median_uj"], {
         "index": _INT, "median_uj": _NUMBER, "samples_uj": _NUMBERS})}},
)  # fmt: skip

_VERDICT = _record(["reference", "exact", "passed", "tensors"], {
    "checked": {"const": True},  # absent in bundles written before unchecked outputs were said
    "reference": _TEXT, "exact": _BOOL, "passed": _BOOL, "tolerance": {"type": ["number", "null"]},
    "tensors": {"type": "array", "items": _record(
        ["tensor", "elements", "mismatched", "beyond"],
        {"tensor": _INT, "dtype": _TEXT, "elements": _INT, "mismatched": _INT,
         "beyond": _INT, "max_abs_diff": {"type": ["number", "null"]},
         "tolerance": _TEXT, "sent": _BOOL})}})  # fmt: skip
_UNCHECKED = _record(["checked", "reason"], {"checked": {"const": False}, "reason": _TEXT})
_OUTPUTS = {  # judged against the host's, or not compared and why
    "if": {"required": ["checked"], "properties": {"checked": {"const": False}}},
    "then": _UNCHECKED, "else": _VERDICT,
}

_RESULT_SUMMARY = _record(
    ["schema", "status", "identity", "validity", "issues", "measurement"],
    {"schema": {"const": BUNDLE_SCHEMA}, "status": {"enum": RESULT_STATUSES},
     "identity": _record(["board", "engine"], {
         "board": _TEXT, "engine": _TEXT, "backend": _NULLABLE_TEXT,
         "engine_libraries": {"type": "array", "items": _TEXT}, "model_sha256": _NULLABLE_TEXT,
         "engine_code": _NULLABLE_TEXT, "toolchain": _NULLABLE_TEXT, "counter_units": _TEXT}),
     "validity": {"enum": ["valid", "degraded", "invalid"]},
     "issues": {"type": "array", "items": _TEXT},
     "error": _record(["type", "message"], {"type": _TEXT, "message": _TEXT, "hint": _TEXT},
                      ["object", "null"]),
     "measurement": _MEASUREMENT, "caveat": _TEXT, "extra": _OBJECT, "memory": _MEMORY,
     "energy": _ENERGY, "outputs": _OUTPUTS},
)  # fmt: skip
_BUILD_SUMMARY = _record(
    ["schema", "status", "kind", "identity", "elf", "work_dir"],
    {"schema": {"const": BUNDLE_SCHEMA}, "status": {"const": "built"}, "kind": {"const": "build"},
     "identity": _record(["board", "engine"], {
         "board": _TEXT, "engine": _TEXT, "backend": _NULLABLE_TEXT,
         "engine_libraries": {"type": "array", "items": _TEXT},
         "model_sha256": _NULLABLE_TEXT, "toolchain": _NULLABLE_TEXT,
         "engine_code": _NULLABLE_TEXT}),
     "elf": _TEXT, "work_dir": _TEXT, "note": _NULLABLE_TEXT},
)  # fmt: skip

_NUMBER = {"type": "number"}
_NULLABLE_NUMBER = {"type": ["number", "null"]}
_VALIDATED_OUTPUT = _record(
    ["tensor", "mean_abs_error", "rmse", "cosine", "differing_share", "max_abs_diff"],
    {"tensor": _TEXT, "mean_abs_error": _NUMBER, "rmse": _NUMBER,
     "l2_relative": _NULLABLE_NUMBER, "cosine": _NUMBER, "differing_share": _NUMBER,
     "max_abs_diff": _NUMBER, "top1_agreement": _NUMBER,
     "accuracy": _record(["labelled", "k", "device_top1", "host_top1"], {
         "labelled": _INT, "k": _INT, "device_top1": _NUMBER, "host_top1": _NUMBER,
         "device_topk": _NUMBER, "host_topk": _NUMBER})},
)  # fmt: skip
_VALIDATION_DATA = _record(["samples", "labelled"], {
    "sources": {"type": "array", "items": _TEXT}, "samples": _INT, "labelled": {"type": "boolean"},
    "notes": {"type": "array", "items": _TEXT},
    "saturated": {"type": "object", "additionalProperties": _NUMBER},
    "reference": _TEXT})  # fmt: skip
_VALIDATION_SUMMARY = _record(
    ["schema", "status", "kind", "identity", "data", "outputs", "file"],
    {"schema": {"const": BUNDLE_SCHEMA}, "status": {"const": "validated"},
     "kind": {"const": "validation"},
     "identity": _record(["board", "engine"], {
         "board": _TEXT, "engine": _TEXT, "backend": _NULLABLE_TEXT,
         "model_sha256": _NULLABLE_TEXT, "toolchain": _NULLABLE_TEXT}),
     "data": _VALIDATION_DATA, "outputs": {"type": "array", "items": _VALIDATED_OUTPUT},
     "file": _TEXT},
)  # fmt: skip
_VALIDATION = _record(
    ["data", "outputs", "speed"],
    {"data": _VALIDATION_DATA,
     "outputs": {"type": "array", "items": _record(["samples", "worst", "histogram"], {
         "samples": _INT, "differing_elements": _INT, "differing_samples": _INT,
         "worst": {"type": "array", "items": _record(["sample", "max_abs_diff"], {
             "sample": _INT, "max_abs_diff": _NUMBER})},
         "histogram": _record(["edges", "counts"], {
             "edges": {"type": "array", "items": _NUMBER}, "counts": _INTS})})},
     "speed": _record(["seconds"], {"seconds": _NUMBER}),
     "counted": {"type": ["object", "null"]}},
)  # fmt: skip

SCHEMAS: dict[str, Any] = {
    "manifest.json": _record(
        ["schema", "status", "files"],
        {"schema": {"const": BUNDLE_SCHEMA}, "status": {"enum": STATUSES},
         "files": {"type": "object", "additionalProperties": _ENTRY}},
    ),
    "summary.json": {
        "if": {"required": ["kind"], "properties": {"kind": {"const": "build"}}},
        "then": _BUILD_SUMMARY,
        "else": {
            "if": {"required": ["kind"], "properties": {"kind": {"const": "validation"}}},
            "then": _VALIDATION_SUMMARY,
            "else": _RESULT_SUMMARY,
        },
    },
    "validation.json": _VALIDATION,
    "build.json": _record([], {"sizes": {"type": "object", "additionalProperties": _INT}}),
    "config.json": _OBJECT,
    "run.json": _OBJECT,
    "provenance.json": _OBJECT,
    "placement.json": _OBJECT,
    "kernel_checks.json": {"type": "array", "items": _OBJECT},
}  # fmt: skip
"""The core's files; an installed pass declares its own (:mod:`hpx_core.results.extensions`)."""
REQUIRED_FILES = ("summary.json",)
"""Files every bundle of this schema has, whatever its status."""


def shape_problem(name: str, document: Any) -> str | None:
    """What is wrong with the shape of the bundle file ``name``, in one line; None if fine."""
    validator = _validator(name)
    problem = _first_problem(validator, document) if validator else None
    return f"{name}: {problem}" if problem else None


def schema_problem(schema: Any, document: Any) -> str | None:
    """What is wrong with ``document`` against ``schema`` (a document hpx reads back that is
    not a bundle file: a calibration), in one line; None if fine."""
    from jsonschema import Draft202012Validator

    return _first_problem(Draft202012Validator(schema), document)


def _first_problem(validator: Validator, document: Any) -> str | None:
    from jsonschema.exceptions import best_match

    error = best_match(validator.iter_errors(document))
    if error is None:
        return None
    where = ".".join(str(part) for part in error.absolute_path)
    message = " ".join(error.message.split())
    message = message if len(message) <= 160 else message[:157] + "..."
    return f"{where}: {message}" if where else message


_COMPILED: dict[int, tuple[Any, Validator]] = {}


def _validator(name: str) -> Validator | None:
    """The validator of ``name``'s schema, compiled once per schema; jsonschema loads when a
    bundle is first read (writing one needs only :data:`BUNDLE_SCHEMA`)."""
    schema = schema_of(name)
    if schema is None:
        return None
    if id(schema) not in _COMPILED:
        from jsonschema import Draft202012Validator

        _COMPILED[id(schema)] = (schema, Draft202012Validator(schema))  # the schema kept alive
    return _COMPILED[id(schema)][1]


def schema_of(name: str) -> Any:
    """The schema of bundle file ``name``: the core's, else an installed pass's; None for a
    file no schema covers (a log, a pass's file whose pass is not installed)."""
    if name in SCHEMAS:
        return SCHEMAS[name]
    from hpx_core.results.extensions import extension_schemas

    return extension_schemas().get(name)
