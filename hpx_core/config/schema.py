"""The profile configuration: one frozen attrs class per YAML section.

Defaults here are the documented defaults; ``hpx config show`` reports which values came from
them. ``engine.config`` stays a raw mapping: each engine plugin owns its class and structures it
through ``hpx_validate_config``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core.config.checks import at_least

MemoryLocation = Literal["tcm", "sram"]
Toolchain = Literal["arm-none-eabi-gcc", "clang", "atfe", "armclang"]
LayerFormat = Literal["csv", "json"]


@attrs.frozen
class ModelSection:
    """The model file and where its tensor arena lives."""

    path: Path | None = None
    arena_size: int | None = attrs.field(default=None, validator=at_least(1))
    arena_location: MemoryLocation | None = None


@attrs.frozen
class EngineSection:
    """Which engine runs the model; ``config`` is validated by that engine's plugin.

    An empty ``type`` means: the one installed engine that reads the model's format and may run
    on the board (an error naming the candidates when there are several).
    """

    type: str = ""
    backend: str | None = None
    config: dict[str, Any] = attrs.field(factory=dict)


@attrs.frozen
class TargetSection:
    """Where the firmware runs and what builds it."""

    board: str = "qemu-m55"
    toolchain: Toolchain = "arm-none-eabi-gcc"
    probe: str | None = None


@attrs.frozen
class ProfilingSection:
    """How much to measure. Emulated counts are exact, so few iterations suffice there."""

    iterations: int = attrs.field(default=5, validator=at_least(1))
    warmup: int = attrs.field(default=1, validator=at_least(0))
    per_layer: bool = True
    counters: tuple[str, ...] = ()


@attrs.frozen
class OutputSection:
    """Where result bundles go and in which format the per-layer table is written."""

    dir: Path = Path("hpx-results")
    format: LayerFormat = "csv"


@attrs.frozen
class BuildSection:
    """Build behaviour: offline uses the source cache only."""

    offline: bool = False
    jobs: int | None = attrs.field(default=None, validator=at_least(1))


@attrs.frozen
class ProfileConfig:
    """A whole, validated profile configuration."""

    model: ModelSection = ModelSection()
    engine: EngineSection = EngineSection()
    target: TargetSection = TargetSection()
    profiling: ProfilingSection = ProfilingSection()
    output: OutputSection = OutputSection()
    build: BuildSection = BuildSection()
