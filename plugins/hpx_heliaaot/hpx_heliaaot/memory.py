"""Placement for helia-aot: heliaAOT plans its own tensors, by memory type; hpx passes on where
the user wants them.

``model.location`` becomes the memory of the constant tensors (read in place, no staging
copy), ``model.arena_location`` that of the persistent and scratch tensors. Unset, heliaAOT's
own plan decides (it stages weights into TCM when they fit). The weights the user placed are
checked against that region before anything is fetched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hpx_core.sdk import (
    BufferNeed,
    CodeSize,
    ConfigError,
    MemoryFigures,
    MemoryLayout,
    MemoryNeeds,
    MemoryRequest,
)

# hpx use words and the heliaAOT memory type of the same memory on an Apollo SoC.
MEMORY_TYPES = {"flash": "MRAM", "data": "DTCM", "tcm": "DTCM", "sram": "SRAM",
                "itcm": "ITCM", "psram": "PSRAM"}
MODEL = "model"
ARENA = "arena"
# No interpreter: the kernels the model calls and the generated code (KWS: about 26 KB).
CODE = CodeSize(least=8 * 1024, likely=96 * 1024)


def memory_type(option: str, word: str) -> str:
    """heliaAOT's name for the memory ``word`` names (a ConfigError when it has none)."""
    if word not in MEMORY_TYPES:
        raise ConfigError(f"{option} is {word}, a memory heliaAOT does not place tensors in",
                          f"choose one of: {', '.join(sorted(MEMORY_TYPES))}")
    return MEMORY_TYPES[word]


def aot_needs(request: MemoryRequest) -> MemoryNeeds:
    """The weights and the arenas, when the user placed them (their size unknown until
    heliaAOT has planned: the arenas count 0 bytes here, the linker checks them)."""
    buffers = []
    if request.location is not None:
        memory_type("model.location", request.location)
        buffers.append(BufferNeed(MODEL, "model's weights", request.model.weight_bytes,
                                  writable=False, option="model.location",
                                  location=request.location))
    if request.arena_location is not None:
        memory_type("model.arena_location", request.arena_location)
        buffers.append(BufferNeed(ARENA, "tensor arenas", 0, writable=True,
                                  option="model.arena_location",
                                  location=request.arena_location))
    return MemoryNeeds(buffers=buffers, code=CODE)


def tensor_rules(layout: MemoryLayout | None) -> list[dict[str, Any]]:
    """heliaAOT ``memory.tensors`` rules for what the user placed."""
    placed = {p.need.name: p for p in layout.placements} if layout is not None else {}
    rules: list[dict[str, Any]] = []
    if MODEL in placed:
        rules.append({"type": "constant",
                      "attributes": {"memory": MEMORY_TYPES[placed[MODEL].word]}})
    if ARENA in placed:
        rules += [{"type": kind, "attributes": {"memory": MEMORY_TYPES[placed[ARENA].word]}}
                  for kind in ("persistent", "scratch")]
    return rules


def static_arenas(plan: Mapping[str, Any]) -> MemoryFigures:
    """The compiler's static arenas for the bundle's memory section (the device runs no
    allocator to ask): per role, the bytes its planner laid out, which is what the generated
    code reserves (``.planned``), over every memory the role's arenas sit in. The plan's
    ``total_size`` is the memory's room, not the arena, so it is left out."""
    whole: dict[str, int] = {}
    for role in ("scratch", "persistent"):
        arenas = plan.get("arenas", {}).get(role, {}).values()
        if arenas:
            whole[f"{role}.planned"] = sum(int(a["used"]) for a in arenas)
    return MemoryFigures(whole)
