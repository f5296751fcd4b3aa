"""The ``engine.config`` section of the ``executorch`` engine."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core.sdk import FieldValueError, MemoryLocation, at_least

_COMMIT = re.compile(r"[0-9a-f]{40}")


def _commit(_instance: object, attribute: attrs.Attribute[Any], value: str | None) -> None:
    if value is not None and not _COMMIT.fullmatch(value):
        raise FieldValueError(attribute.name, f"must be a full 40-hex commit, got {value!r}")


@attrs.frozen
class ExecutorchConfig:
    """Runtime buffers, kernel selection and source overrides; the provider is engine.backend.

    ``None`` means "take it from the PTE's sidecar, else from the PTE itself": explicit values
    always win over the sidecar. A ``*_location`` is a use word of the board's memory map
    (``data``, ``tcm``, ``sram``, ...; unset: hpx chooses, the data memory when it fits).
    ``etdump`` writes ExecuTorch's ETDump (events and timings) into the bundle;
    ``--check-layers`` always writes it, with every layer's outputs. ``kernels`` is what of the
    runtime's core is compiled: ``model`` (default) the units a program can link, ``all`` every
    unit of its targets.
    """

    source_path: Path | None = None
    method_arena_size: int | None = attrs.field(default=None, validator=at_least(1))
    temporary_arena_size: int | None = attrs.field(default=None, validator=at_least(0))
    input_size: int | None = attrs.field(default=None, validator=at_least(1))
    output_size: int | None = attrs.field(default=None, validator=at_least(1))
    portable_ops: tuple[str, ...] | None = None
    ns_ops: bool | None = None
    cmsis_nn_path: Path | None = None
    cmsis_nn_ref: str | None = attrs.field(default=None, validator=_commit)
    planned_arena_location: MemoryLocation | None = None
    method_arena_location: MemoryLocation | None = None
    temporary_arena_location: MemoryLocation | None = None
    io_location: MemoryLocation | None = None
    etdump: bool = False
    etdump_buffer_size: int | None = attrs.field(default=None, validator=at_least(132 * 1024))
    kernels: Literal["model", "all"] = "model"
