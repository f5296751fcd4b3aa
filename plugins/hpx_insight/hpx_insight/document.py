"""The instruction profile as a bundle file (``instruction_profile.json``) and its schema.

Per layer: instructions per pass (what SysTick counted), instructions by class and memory use
per region of the board's map (totals over the ``passes`` counted passes: a reader divides),
and the hottest functions and basic blocks per pass with their source lines. The whole
inference comes last, with the same fields.
"""

from __future__ import annotations

from typing import Any

from hpx_insight.hot import hot_blocks, hot_functions, hot_json
from hpx_insight.profile import InstructionProfile
from hpx_insight.schemas import (
    CLASSES,
    PROFILE_FILE,
    PROFILE_SCHEMA,
    PROFILE_SCHEMA_ID,
)
from hpx_insight.work import MISS_KEYS, Work

SCHEMA_ID = PROFILE_SCHEMA_ID
FILE_NAME = PROFILE_FILE
SCHEMA = PROFILE_SCHEMA

def _cache_json(work: Work, regions: tuple[str, ...]) -> dict[str, Any]:
    misses = work.memory(len(regions) - 1, MISS_KEYS)
    return {"icache_misses": work.icache_misses(),
            "dcache": {name: use for name, use in zip(regions, misses, strict=True)
                       if any(use.values())}}


def _work_json(work: Work, regions: tuple[str, ...],
               where: dict[int, tuple[str, str]], caches: bool) -> dict[str, Any]:
    total = sum(e.count for e in work.executed)
    memory = work.memory(len(regions) - 1)
    return ({"cache": _cache_json(work, regions)} if caches else {}) | {
        "instructions": list(work.per_pass),
        "classes": work.classes(),
        "memory": {name: use for name, use in zip(regions, memory, strict=True)
                   if any(use.values())},
        "functions": hot_json(hot_functions(work.executed), total, where, work.passes),
        "blocks": hot_json(hot_blocks(work.executed), total, where, work.passes),
    }


def _addresses(profile: InstructionProfile) -> list[int]:
    found: set[int] = set()
    for work in (*(layer.work for layer in profile.layers), profile.whole):
        found.update(h.address for h in hot_functions(work.executed))
        found.update(h.address for h in hot_blocks(work.executed))
    return sorted(found)


def profile_document(profile: InstructionProfile) -> dict[str, Any]:
    """The bundle file's content (checked against :data:`SCHEMA` by its tests)."""
    from hpx_insight.binutils import binutils_for

    where = dict(binutils_for(profile.toolchain).locations(profile.elf, _addresses(profile)))
    regions = profile.region_names
    cached = profile.caches is not None
    return {
        "schema": SCHEMA_ID, "board": profile.board.name, "toolchain": profile.toolchain,
        "passes": profile.layers[0].work.passes if profile.layers else 1,
        "regions": list(regions), "classes": list(CLASSES),
        "calibration_pair": profile.calibration_pair,
        "counter_agrees": profile.counter_agrees(), "seconds": round(profile.seconds, 3),
        "layers": [{"index": layer.index, "name": layer.name, "op": layer.op,
                    "calls": layer.calls, **_work_json(layer.work, regions, where, cached)}
                   for layer in profile.layers],
        "whole": _work_json(profile.whole, regions, where, cached),
    } | ({"caches": profile.caches.json(regions)} if profile.caches else {})


def shape_problem(document: Any) -> str | None:
    """What is wrong with a document's shape, in one line; None if it is an instruction
    profile this hpx reads."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(SCHEMA).iter_errors(document))
    if error is None:
        return None
    where = ".".join(str(part) for part in error.absolute_path)
    return f"{FILE_NAME}: {where}: {error.message}"[:200]
