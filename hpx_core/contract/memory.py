"""The memory plan's records: what an engine's glue needs placed (``hpx_plan_memory``) and the
core's answer, the layout every buffer goes to (``FirmwareRequest.layout``); and the memory an
engine knows on the host for the bundle (``MemoryFigures``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import attrs

from hpx_core.contract.engine import strs
from hpx_core.errors import PluginError

if TYPE_CHECKING:
    from hpx_core.boards.model import Board
    from hpx_core.contract.engine import EngineSelection
    from hpx_core.models.info import ModelInfo


def _needs(values: Iterable[BufferNeed]) -> tuple[BufferNeed, ...]:
    return tuple(values)


def _placements(values: Iterable[BufferPlacement]) -> tuple[BufferPlacement, ...]:
    return tuple(values)


@attrs.frozen
class MemoryRequest:
    """For ``hpx_plan_memory``: the model, the board and the ``model`` section's placement
    options (``model.arena_size``, ``model.location``, ``model.arena_location``)."""

    engine: EngineSelection
    board: Board
    model: ModelInfo
    arena_size: int | None = None
    location: str | None = None
    arena_location: str | None = None


@attrs.frozen
class BufferNeed:
    """A large object the glue will define, before it is placed.

    ``writable`` buffers (arenas, I/O) are zero-initialized working memory, the others (a
    model) data loaded with the image. ``option`` is the config key that places it and
    ``location`` the use word the user gave there (None: the core chooses, by ``prefer``, the
    use words in order of preference; empty: the core's order for the kind). ``resize`` names
    the option that sets its size, for hints.

    ``symbol`` is the C symbol the glue defines for it (with ``MemoryLayout.attribute(name)``
    on the definition): the core then checks the linked firmware holds it, at least ``size``
    bytes, in the region the plan chose, and the engine lists it nowhere else. Leave it None
    only for what has no one symbol (an engine's own planner's tensors; several symbols in
    one section): list those symbols in ``FirmwareContribution.buffers`` instead.
    """

    name: str
    what: str
    size: int
    writable: bool
    option: str
    location: str | None = None
    prefer: tuple[str, ...] = attrs.field(default=(), converter=strs)
    resize: str | None = None
    symbol: str | None = None


@attrs.frozen
class CodeSize:
    """The engine's code and constants besides its buffers, in bytes: surely at least
    ``least`` (a plan that cannot fit even so is refused), likely at most ``likely`` (the core
    keeps that much room when it chooses)."""

    least: int
    likely: int


@attrs.frozen
class MemoryNeeds:
    """Answer of ``hpx_plan_memory``: the buffers to place and the code's size."""

    buffers: tuple[BufferNeed, ...] = attrs.field(converter=_needs)
    code: CodeSize


@attrs.frozen
class BufferPlacement:
    """Where one buffer goes: a region of the board, the use word that chose it, and the
    section attribute that puts it there (``""``: the default place for its kind)."""

    need: BufferNeed
    region: str
    word: str
    section: str
    chosen: bool  # the user named the place

    @property
    def attribute(self) -> str:
        """The C attribute to put on the buffer's definition (empty for the default place)."""
        return f'__attribute__((section("{self.section}")))' if self.section else ""


@attrs.frozen
class MemoryLayout:
    """The core's plan (``FirmwareRequest.layout``): every buffer placed, code in
    ``code_region``, checked against the memory map before anything is compiled."""

    board: str
    placements: tuple[BufferPlacement, ...] = attrs.field(converter=_placements)
    code_region: str | None
    code: CodeSize

    def place(self, name: str) -> BufferPlacement:
        for placement in self.placements:
            if placement.need.name == name:
                return placement
        raise PluginError(f"the memory plan has no buffer {name!r}",
                          "hpx_plan_memory did not declare it; check the engine's hooks")

    def attribute(self, name: str) -> str:
        """The section attribute for ``name``; empty when it is not planned."""
        names = {p.need.name for p in self.placements}
        return self.place(name).attribute if name in names else ""


def _layer_figures(value: Mapping[int, Mapping[str, int]]) -> dict[int, dict[str, int]]:
    return {int(k): {str(n): int(b) for n, b in v.items()} for k, v in value.items()}


def _figures(value: Mapping[str, int]) -> dict[str, int]:
    return {str(k): int(v) for k, v in value.items()}


@attrs.frozen
class MemoryFigures:
    """Memory an engine knows without the device (``ResultExtras.memory``): an ahead-of-time
    compiler's static arenas, a planner's sizes, a buffer its glue does not watch.

    Named as the memory pass names what the device measures (docs/firmware-harness.md):
    ``<buffer>`` bytes in use, ``<buffer>.size`` configured, ``<buffer>.planned`` what the
    engine's planner needs; ``layers`` maps a layer index to the same names for that layer.
    They join the bundle's ``memory`` section; where the device sent the same name, the
    device's figure stands.
    """

    whole: Mapping[str, int] = attrs.field(factory=dict, converter=_figures)
    layers: Mapping[int, Mapping[str, int]] = attrs.field(factory=dict,
                                                          converter=_layer_figures)

