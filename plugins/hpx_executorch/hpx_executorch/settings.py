"""Resolve the engine config against the program: explicit config, then sidecar, then the PTE.

The runtime buffers (planned arena, method arena, temporary arena, input, output) get a size
(:mod:`hpx_executorch.memory` has them placed); the kernel selection gets the provider, the
ns-ops switch and the portable operators to register; the ETDump pass what it records (nothing,
events, or events with every layer's outputs) and the size of ETDumpGen's buffer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import attrs

from hpx_core.sdk import ConfigError
from hpx_core.sdk.models import ModelInfo
from hpx_executorch.config import ExecutorchConfig
from hpx_executorch.providers import cortex_m_ops, needs_ns_ops, portable_ops
from hpx_executorch.sidecar import sidecar_of

DEFAULT_METHOD_ARENA = 32 * 1024  # per loaded method; EValues and tensor metadata
DEFAULT_TEMP_ARENA = 16 * 1024  # CMSIS-NN scratch buffers
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
    etdump: Etdump = "off"
    etdump_buffer_size: int = DEFAULT_ETDUMP_BUFFER
    cortex_m_ops: tuple[str, ...] = attrs.field(default=(), converter=_sorted_ops)


def _size(values: Iterable[int | None]) -> int | None:
    sizes = list(values)
    if not sizes or any(s is None for s in sizes):
        return None
    return sum(s for s in sizes if s is not None)


def _planned(model: ModelInfo) -> int:
    sidecar = sidecar_of(model)
    if sidecar is not None and sidecar.planned_arena_size:
        return sidecar.planned_arena_size
    return max(model.planned_memory, default=0)


def etdump_mode(config: ExecutorchConfig, check_layers: str) -> Etdump:
    """With the layer check: events and every layer's outputs; ``etdump``: events alone."""
    if check_layers != "off":
        return "tensors"
    return "events" if config.etdump else "off"


def resolve(config: ExecutorchConfig, backend: str, model: ModelInfo,
            check_layers: str = "off") -> Settings:
    portable = config.portable_ops
    if portable is None:
        portable = portable_ops(model)
    ns_ops = config.ns_ops if config.ns_ops is not None else (
        backend == "ns" and needs_ns_ops(model))
    input_size = config.input_size or _size(t.size_bytes for t in model.inputs)
    output_size = config.output_size or _size(t.size_bytes for t in model.outputs)
    if input_size is None or output_size is None:
        raise ConfigError(f"{model.path.name}: the I/O sizes cannot be read from the program",
                          "set engine.config.input_size and output_size")
    return Settings(
        backend=backend, ns_ops=bool(ns_ops), portable_ops=portable,
        planned_arena_size=max(_planned(model), 16),
        method_arena_size=config.method_arena_size or DEFAULT_METHOD_ARENA,
        temporary_arena_size=(config.temporary_arena_size if config.temporary_arena_size
                              is not None else DEFAULT_TEMP_ARENA),
        input_size=input_size, output_size=output_size,
        etdump=etdump_mode(config, check_layers),
        etdump_buffer_size=config.etdump_buffer_size or DEFAULT_ETDUMP_BUFFER,
        cortex_m_ops=cortex_m_ops(model),
    )
