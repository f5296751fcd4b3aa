"""What the executorch glue needs placed: the program (with its input bytes) and the runtime's
four buffers, each by its own option; the core places them on the board's memory map.

``model.location`` places the program; ``engine.config.<buffer>_location`` each buffer (a use
word of the board's regions: ``data`` is where ``.bss`` goes, ``tcm``, ``sram``, ...).
``model.arena_location`` is for engines with one tensor arena, so it is refused here.
"""

from __future__ import annotations

from hpx_core.sdk import BufferNeed, CodeSize, ConfigError, MemoryNeeds, MemoryRequest
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.settings import Settings

PROGRAM = "program"
# Code and constants besides the program: the runtime, its kernels and the glue (the tier1
# program's arm build on qemu-m55 links about 160 KB; LEAST is well below any build).
CODE = CodeSize(least=64 * 1024, likely=256 * 1024)
TEMP_PAD = 16  # the runner over-allocates the temporary arena for its own alignment


SYMBOLS = {"planned_arena": "hpx_et_planned_arena", "method_arena": "hpx_et_method_arena",
           "temporary_arena": "hpx_et_temp_arena", "io": "hpx_et_output"}
"""Each buffer's definition in the runner (glue/hpx_et_runner.cpp)."""


def _buffer(name: str, what: str, size: int, location: str | None,
            resize: str | None = None) -> BufferNeed:
    return BufferNeed(name, what, size, writable=True, option=f"engine.config.{name}_location",
                      location=location, resize=resize, symbol=SYMBOLS[name])


def executorch_needs(request: MemoryRequest, config: ExecutorchConfig, settings: Settings
                     ) -> MemoryNeeds:
    """The program and the planned, method and temporary arenas and the output buffer."""
    if request.arena_location is not None:
        raise ConfigError(
            "model.arena_location places a single tensor arena; the executorch engine has "
            "four buffers",
            "set engine.config.planned_arena_location (and method_arena_location, "
            "temporary_arena_location, io_location) instead",
        )
    program = request.model.size_bytes + sum(t.size_bytes or 0 for t in request.model.inputs)
    return MemoryNeeds(
        buffers=(
            BufferNeed(PROGRAM, "program and its inputs", program, writable=False,
                       option="model.location", location=request.location),
            _buffer("planned_arena", "planned arena", settings.planned_arena_size,
                    config.planned_arena_location),
            _buffer("method_arena", "method arena", 2 * settings.method_arena_size,
                    config.method_arena_location, "engine.config.method_arena_size"),
            _buffer("temporary_arena", "temporary arena",
                    settings.temporary_arena_size + TEMP_PAD, config.temporary_arena_location,
                    "engine.config.temporary_arena_size"),
            _buffer("io", "output buffer", settings.output_size, config.io_location),
        ),
        code=CODE,
    )
