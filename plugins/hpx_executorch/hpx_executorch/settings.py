"""Resolve the engine config against the program: explicit config, then sidecar, then the PTE.

The five runtime buffers (planned arena, method arena, temporary arena, input, output) get a
size and a memory location; the kernel selection gets the provider, the ns-ops switch and the
portable operators to register; the ETDump pass what it records (nothing, events, or events
with every layer's outputs) and the size of ETDumpGen's buffer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import attrs

from hpx_core.boards import Board
from hpx_core.errors import ConfigError
from hpx_core.models import ModelInfo
from hpx_executorch.config import ExecutorchConfig

DEFAULT_METHOD_ARENA = 32 * 1024  # per loaded method; EValues and tensor metadata
DEFAULT_TEMP_ARENA = 16 * 1024  # CMSIS-NN scratch buffers
BUFFERS = ("planned_arena", "method_arena", "temporary_arena", "io")
# ETDumpGen keeps its flatcc builder's working memory (a quarter, at most 128 KiB) and the dump
# in one buffer, and aborts unless it is larger than 128 KiB plus the builder.
DEFAULT_ETDUMP_BUFFER = 192 * 1024
Etdump = Literal["off", "events", "tensors"]


def _sorted_ops(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(value)))


@attrs.frozen
class Settings:
    backend: str
    ns_ops: bool
    portable_ops: tuple[str, ...] = attrs.field(converter=_sorted_ops)
    planned_arena_size: int
    method_arena_size: int
    temporary_arena_size: int
    input_size: int
    output_size: int
    locations: dict[str, str] = attrs.field(factory=dict)
    sections: dict[str, str] = attrs.field(factory=dict)
    etdump: Etdump = "off"
    etdump_buffer_size: int = DEFAULT_ETDUMP_BUFFER


def _size(values: Iterable[int | None]) -> int | None:
    sizes = list(values)
    if not sizes or any(s is None for s in sizes):
        return None
    return sum(s for s in sizes if s is not None)


def _planned(model: ModelInfo) -> int:
    if model.sidecar is not None and model.sidecar.planned_arena_size:
        return model.sidecar.planned_arena_size
    return max(model.planned_memory, default=0)


def has_data_tcm(board: Board) -> bool:
    return any("TCM" in m.name.upper() and "data" in m.use.split(",") for m in board.memory)


def _location(board: Board, buffer: str, chosen: str | None) -> str:
    """The board's default data memory unless asked otherwise (TCM where there is one)."""
    tcm = has_data_tcm(board)
    if chosen is None:
        return "tcm" if tcm else "sram"
    if chosen == "tcm" and not tcm:
        raise ConfigError(
            f"engine.config.{buffer}_location is tcm, but board {board.name} has no data TCM",
            "use sram, or an Apollo board",
        )
    return chosen


def section_attribute(board: Board, location: str) -> str:
    """Where a buffer lands: the default .bss is TCM on Apollo boards and SRAM on the emulated
    ones; the Apollo linker scripts of nsx-ambiq-sdk collect ``.sram_bss`` into shared SRAM."""
    if location == "sram" and has_data_tcm(board):
        return '__attribute__((section(".sram_bss")))'
    return ""


def etdump_mode(config: ExecutorchConfig, check_layers: str) -> Etdump:
    """With the layer check: events and every layer's outputs; ``etdump``: events alone."""
    if check_layers != "off":
        return "tensors"
    return "events" if config.etdump else "off"


def region_uses(board: Board, location: str) -> tuple[str, ...]:
    """The memory-map ``use`` a buffer at ``location`` lands in (see :func:`section_attribute`)."""
    return ("sram",) if location == "sram" and has_data_tcm(board) else ("data",)


def resolve(config: ExecutorchConfig, backend: str, model: ModelInfo, board: Board,
            check_layers: str = "off") -> Settings:
    portable = config.portable_ops
    if portable is None:
        portable = tuple(model.portable_ops)
    ns_ops = config.ns_ops if config.ns_ops is not None else (
        backend == "ns" and model.needs_ns_ops)
    input_size = config.input_size or _size(t.size_bytes for t in model.inputs)
    output_size = config.output_size or _size(t.size_bytes for t in model.outputs)
    if input_size is None or output_size is None:
        raise ConfigError(f"{model.path.name}: the I/O sizes cannot be read from the program",
                          "set engine.config.input_size and output_size")
    chosen = {"planned_arena": config.planned_arena_location,
              "method_arena": config.method_arena_location,
              "temporary_arena": config.temporary_arena_location,
              "io": config.io_location}
    locations = {b: _location(board, b, chosen[b]) for b in BUFFERS}
    return Settings(
        backend=backend, ns_ops=bool(ns_ops), portable_ops=portable,
        planned_arena_size=max(_planned(model), 16),
        method_arena_size=config.method_arena_size or DEFAULT_METHOD_ARENA,
        temporary_arena_size=(config.temporary_arena_size if config.temporary_arena_size
                              is not None else DEFAULT_TEMP_ARENA),
        input_size=input_size, output_size=output_size,
        locations=locations,
        sections={b: section_attribute(board, loc) for b, loc in locations.items()},
        etdump=etdump_mode(config, check_layers),
        etdump_buffer_size=config.etdump_buffer_size or DEFAULT_ETDUMP_BUFFER,
    )
