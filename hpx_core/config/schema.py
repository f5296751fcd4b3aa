"""The profile configuration: one frozen attrs class per YAML section.

Defaults here are the documented defaults; ``hpx config show`` reports which values came from
them. ``engine.config`` stays a raw mapping: each engine plugin owns its class and structures it
through ``hpx_validate_config``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import attrs

from hpx_core.boards.model import ClockMode
from hpx_core.config.checks import FieldValueError, at_least, finite_at_least
from hpx_core.contract import CheckLayers, ToolchainName

MemoryLocation = Literal["code", "flash", "itcm", "tcm", "data", "sram", "psram"]
"""A memory by the use word of its regions in the board's memory map (``hpx boards``)."""
Toolchain = ToolchainName
LayerFormat = Literal["csv", "json"]


@attrs.frozen
class ModelSection:
    """The model file, where it lives on the board, and its tensor arena (size and place).

    Unset locations are chosen by hpx: the board's defaults when they fit, else the first
    memory with room; a location that cannot hold the buffer is refused before any build.
    """

    path: Path | None = None
    location: MemoryLocation | None = None
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
    """Where the firmware runs and what builds it; ``place`` runs it on a board farm's place."""

    board: str = "qemu-m55"
    toolchain: Toolchain = "arm-none-eabi-gcc"
    probe: str | None = None
    place: str | None = None
    clock: ClockMode = "lp"
    """The silicon board's performance mode: ``lp`` the clock after reset, ``hp`` the SoC's
    high-performance mode (the firmware switches at start-up as Ambiq's HAL does; with an
    emulated board, the mode of the silicon board an installed pass estimates for)."""


@attrs.frozen
class ProfilingSection:
    """How much to measure. Emulated counts are exact, so few iterations suffice there.
    Installed passes add keys of their own here (:mod:`hpx_core.config.pass_keys`)."""

    iterations: int = attrs.field(default=5, validator=at_least(1))
    warmup: int = attrs.field(default=1, validator=at_least(0))
    per_layer: bool = True
    counters: tuple[str, ...] = ()
    check_layers: CheckLayers = "off"
    """Compare every layer's outputs with the host in an uncounted pass after the measured
    ones: ``first`` sends the first differing layer in full, ``all`` every one (1 MiB cap)."""
    output_tolerance: float | None = attrs.field(default=None, validator=finite_at_least(0))
    """The largest difference accepted between the device's outputs and the host reference's,
    in each tensor's own units (quantization steps for integer outputs). Unset: integer outputs
    must match exactly, float outputs within 1e-5 + 1e-3 x |host| (hpx_core.results.outputs)."""
    memory: bool = True
    """Measure the stack, the engine's arenas and the heap in use, per layer, in one uncounted
    inference after the measured ones (the bundle's ``memory`` section); ``false`` leaves the
    pass out of the firmware."""


@attrs.frozen
class OutputSection:
    """Where result bundles go and in which format the per-layer table is written."""

    dir: Path = Path("hpx-results")
    format: LayerFormat = "csv"


@attrs.frozen
class BuildSection:
    """Build behaviour: offline uses the source cache only; generated projects live in
    ``work_dir`` (default: ``hpx-work`` beside the output folder), one folder per set of inputs.
    """

    offline: bool = False
    jobs: int | None = attrs.field(default=None, validator=at_least(1))
    work_dir: Path | None = None


@attrs.frozen
class FarmSection:
    """The labgrid board farm behind ``target.place``.

    ``coordinator`` falls back to labgrid's ``LG_COORDINATOR``; ``wait`` is how long a busy
    place is waited for (0: fail at once); ``ssh_key`` logs in to places that run QEMU on
    their exporter host (else ssh's default keys and agent).
    """

    coordinator: str | None = None
    wait: float = attrs.field(default=600.0, validator=at_least(0))
    ssh_key: Path | None = None


POWER_RATES = (1_000_000, 500_000, 200_000, 100_000, 50_000, 20_000, 10_000)
"""The sample rates a Joulescope streams at (its driver's ``h/fs``), fastest first."""


def _two_inputs(_instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if len(value) != 2 or value[0] == value[1] or not all(0 <= v <= 3 for v in value):
        raise FieldValueError(attribute.name, "must be two different inputs of the instrument "
                              f"among 0 to 3, got {list(value)}")


def _a_rate(_instance: object, attribute: attrs.Attribute[Any], value: int) -> None:
    if value not in POWER_RATES:
        raise FieldValueError(attribute.name, "must be one of the instrument's rates "
                              f"({', '.join(f'{r:,}' for r in POWER_RATES)}), got {value:,}")


@attrs.frozen
class PowerSection:
    """Energy on a silicon board (``--power``): a Joulescope in series with the board's supply,
    its two general-purpose inputs wired to the two pads the firmware drives around each
    measured inference and layer (docs/apollo-boards.md, "Energy").

    ``inputs``: the instrument's inputs that see the board's power GPIO 0 and 1; ``serial``:
    which instrument when several are attached; ``supply``: the rail it measures, as wired
    (recorded with the result)."""

    enabled: bool = False
    instrument: Literal["joulescope"] = "joulescope"
    serial: str | None = None
    inputs: tuple[int, int] = attrs.field(default=(0, 1), validator=_two_inputs)
    sample_rate: int = attrs.field(default=POWER_RATES[0], validator=_a_rate)
    supply: str | None = None


def _positive(instance: object, attribute: attrs.Attribute[Any], value: int | None) -> None:
    if value is not None and value < 1:
        raise ValueError(f"{attribute.name} must be at least 1, not {value}")


@attrs.frozen
class ValidationSection:
    """A data set ``hpx validate`` runs through the built firmware (docs/validation.md).

    ``data``: a ``.npy``/``.npz`` file or a folder of ``.npy``/``.bin`` samples; ``labels``:
    one class index per sample (``.npy`` or a text file, a line each); ``limit``: the first N
    samples only; ``top_k``: the k of top-k accuracy against the labels."""

    data: str | None = None
    labels: str | None = None
    limit: int | None = attrs.field(default=None, validator=_positive)
    top_k: int = attrs.field(default=5, validator=_positive)


@attrs.frozen
class ProfileConfig:
    """A whole, validated profile configuration."""

    model: ModelSection = ModelSection()
    engine: EngineSection = EngineSection()
    target: TargetSection = TargetSection()
    profiling: ProfilingSection = ProfilingSection()
    output: OutputSection = OutputSection()
    build: BuildSection = BuildSection()
    farm: FarmSection = FarmSection()
    power: PowerSection = PowerSection()
    validation: ValidationSection = ValidationSection()
