"""The JSON shapes of the instruction profile and the cycle estimate a bundle may hold.

They live with the bundle's other schemas so that verifying a bundle checks them too; the
modules that write the files (``hpx_insight``) take the class names from here.
"""

from __future__ import annotations

from typing import Any

PROFILE_FILE = "instruction_profile.json"
PROFILE_SCHEMA_ID = "hpx.instruction-profile/1"
ESTIMATE_FILE = "cycle_estimate.json"
ESTIMATE_SCHEMA_ID = "hpx.cycle-estimate/1"
CLASSES = ("load", "store", "vector_load", "vector_store", "vector_mac", "vector", "mac", "dsp",
           "float", "divide", "branch_taken", "branch_not_taken", "other")
"""Instruction classes of a profile, in the order reports show them."""

_COUNT = {"type": "integer"}
_HOT = {"type": "array", "items": {
    "type": "object", "required": ["name", "address", "location", "instructions", "share"],
    "properties": {"name": {"type": "string"}, "address": {"type": "string"},
                   "location": {"type": "string"}, "instructions": {"type": "number"},
                   "share": {"type": "number"}, "end": {"type": "string"},
                   "executions": {"type": "number"}}}}
_WORK = {
    "type": "object",
    "required": ["instructions", "classes", "memory", "functions", "blocks"],
    "properties": {
        "instructions": {"type": "array", "items": _COUNT},
        "classes": {"type": "object", "required": list(CLASSES),
                    "additionalProperties": _COUNT},
        "memory": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["loads", "stores", "bytes_read", "bytes_written"],
            "additionalProperties": _COUNT}},
        "functions": _HOT, "blocks": _HOT,
        "cache": {"type": "object", "required": ["icache_misses", "dcache"], "properties": {
            "icache_misses": _COUNT,
            "dcache": {"type": "object", "additionalProperties": {
                "type": "object", "additionalProperties": _COUNT}}}},
    },
}
_GEOMETRY = {"type": "object", "required": ["size", "ways", "line", "source"],
             "properties": {"size": _COUNT, "ways": _COUNT, "line": _COUNT,
                            "source": {"type": "string"}}}
PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["schema", "board", "toolchain", "passes", "regions", "classes", "layers",
                 "whole", "counter_agrees"],
    "properties": {
        "schema": {"const": PROFILE_SCHEMA_ID},
        "board": {"type": "string"}, "toolchain": {"type": "string"},
        "passes": {"type": "integer", "minimum": 1},
        "regions": {"type": "array", "items": {"type": "string"}},
        "classes": {"type": "array", "items": {"enum": list(CLASSES)}},
        "calibration_pair": {"type": "number"}, "counter_agrees": {"type": "boolean"},
        "seconds": {"type": "number"},
        "layers": {"type": "array", "items": {"allOf": [_WORK, {
            "type": "object", "required": ["index", "name", "op", "calls"],
            "properties": {"index": _COUNT, "name": {"type": "string"},
                           "op": {"type": "string"}, "calls": _COUNT}}]}},
        "whole": _WORK,
        "caches": {"type": "object", "required": ["board", "icache", "dcache"], "properties": {
            "board": {"type": "string"}, "icache": _GEOMETRY,
            "dcache": {"oneOf": [_GEOMETRY, {"type": "null"}]},
            "shared_leaves_out": {"type": "array", "items": {"type": "string"}}}},
    },
}


MAX_ESTIMATED_CYCLES = 1e15
"""More cycles than any estimate can mean (46 days of one inference at 250 MHz): a document
past it was made from nonsense costs, and is refused rather than shown."""
_AMOUNT = {"type": "number", "minimum": 0, "maximum": MAX_ESTIMATED_CYCLES}
_NUMBERS = {"type": "object", "additionalProperties": _AMOUNT}
_SLOT = {"type": "object",
         "required": ["index", "name", "op", "estimated_cycles", "estimated_ms", "classes",
                      "counts"],
         "properties": {"index": _COUNT, "name": {"type": "string"}, "op": {"type": "string"},
                        "instructions": _AMOUNT, "estimated_cycles": _AMOUNT,
                        "estimated_ms": _AMOUNT, "classes": _NUMBERS, "counts": _NUMBERS}}
ESTIMATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["schema", "model", "board", "source_board", "clock_hz", "metric", "layers",
                 "whole", "unmodelled"],
    "properties": {
        "schema": {"const": ESTIMATE_SCHEMA_ID}, "model": {"type": "string"},
        "board": {"type": "string"}, "source_board": {"type": "string"},
        "clock_hz": {"type": "integer", "minimum": 1}, "clock": {"enum": ["lp", "hp"]},
        "metric": {"const": "estimated_cycles"},
        "calibration": {"type": ["string", "null"]},
        "regions": {"type": "object", "additionalProperties": {"type": "string"}},
        "memory_costs": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["read_fill", "write_miss", "source"],
            "properties": {"read_fill": _AMOUNT, "write_miss": _AMOUNT,
                           "source": {"type": "string"}}}},
        "unmodelled": {"type": "array", "items": {"type": "string"}},
        "layers": {"type": "array", "items": _SLOT}, "whole": _SLOT,
        "best_placement": {"type": "string"},
        "placements": {"type": "array", "items": {
            "type": "object",
            "required": ["buffers", "default", "estimated_cycles", "estimated_ms"],
            "properties": {"buffers": {"type": "object",
                                       "additionalProperties": {"type": "string"}},
                           "default": {"type": "boolean"}, "misses": {"enum": ["shared", "alone"]},
                           "estimated_cycles": _AMOUNT, "estimated_ms": _AMOUNT,
                           "layers": _NUMBERS}}},
        "energy": {"type": "object", "properties": {
            "note": {"type": "string"}, "inference_uj": {"type": "number"},
            "layers": {"type": "object", "additionalProperties": {"type": "number"}}}},
    },
}
