"""What a MicroInterpreter engine needs placed: the model, read in place and never copied, and
the tensor arena. ``model.location`` and ``model.arena_location`` place them."""

from __future__ import annotations

from hpx_core.sdk import BufferNeed, CodeSize, FirmwareRequest, MemoryNeeds, MemoryRequest
from hpx_tflm_family.arena import ArenaPlan, plan_arena

MODEL = "model"
ARENA = "arena"
ARENA_SYMBOL = "hpx_tflm_arena"  # defined with C linkage in hpx_tflm_runner.cc
MODEL_SYMBOL = "hpx_tflm_model"


def family_needs(request: MemoryRequest, code: CodeSize) -> MemoryNeeds:
    """The model and the arena (configured, or a probe sized from the memory it goes in)."""
    arena = plan_arena(request.arena_size, request.board, request.arena_location)
    return MemoryNeeds(
        buffers=(
            BufferNeed(MODEL, "model", request.model.size_bytes, writable=False,
                       option="model.location", location=request.location,
                       symbol=MODEL_SYMBOL),
            BufferNeed(ARENA, "tensor arena", arena.size, writable=True,
                       option="model.arena_location", location=request.arena_location,
                       resize="model.arena_size", symbol=ARENA_SYMBOL),
        ),
        code=code,
    )


def planned_arena(request: FirmwareRequest) -> ArenaPlan:
    """The arena the memory plan placed (a firmware request without a plan sizes its own)."""
    if request.layout is None:
        return plan_arena(request.arena_size, request.board)
    size = request.layout.place(ARENA).need.size
    return ArenaPlan(size, "config" if request.arena_size is not None else "probe")

