"""What the memory pass measured: the stack, the engine's arenas and the heap, per layer and whole.

The firmware's memory pass (firmware_templates/harness/hpx_memory.h) ran one uncounted
inference and sent, per layer, the stack's deepest point (MEMLAYER) and the engine's figures
(MEMUSE), then whole-model figures (MEMFACT) and the whole stack (MEMEND). Depths are bytes
below the stack's top: what the firmware needs, the frames of ``main()`` and the harness
included (``base``: where the harness called the engine). A layer that stayed shallower than
the harness's own layer hooks reads as their depth and is marked ``stack_at_most``.

The engine's names follow one convention, which is what lets the host read any engine's
buffers alike: ``<buffer>`` is bytes in use (per layer: up to that layer; whole: the most),
``<buffer>.size`` the bytes configured, ``<buffer>.planned`` what the engine's own planner
said it needs, ``<buffer>.needed`` the smallest size that fits it (when the engine knows) and
``<buffer>.at`` where it starts, which the run joins to the memory plan (:class:`BufferPlace`);
other dotted names are detail kept as sent. An engine may add figures it knows
on the host (``ResultExtras.memory``: a compiler's static arenas); the device's stand where
both name one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from hpx_core.contract import MemoryFigures
from hpx_core.wire import Capture

HEAP = "heap"
HEAP_INFERENCE = "heap.inference"
SECTION = "memory"


def _ints(values: Mapping[str, int]) -> dict[str, int]:
    return dict(values)


@attrs.frozen
class LayerMemory:
    """One layer's memory: its stack depth and the engine's figures for it."""

    index: int
    name: str
    op: str
    stack: int
    stack_at_most: bool  # the layer stayed within the harness's hooks: its depth is at most this
    uses: Mapping[str, int] = attrs.field(factory=dict, converter=_ints)

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "op": self.op, "stack": self.stack,
                "stack_at_most": self.stack_at_most, "uses": dict(self.uses)}


@attrs.frozen
class StackUse:
    """The whole inference's stack: its size, its deepest point, where the engine was called."""

    size: int
    used: int
    base: int

    @property
    def engine(self) -> int:
        """Bytes the inference took below where the harness called the engine."""
        return self.used - self.base

    @property
    def at_limit(self) -> bool:
        """The deepest point is the stack's last word: it may have overflowed."""
        return self.used >= self.size

    def to_json(self) -> dict[str, Any]:
        return {"size": self.size, "used": self.used, "base": self.base,
                "engine": self.engine, "at_limit": self.at_limit}


@attrs.frozen
class BufferPlace:
    """Where a buffer is: the region of the board's memory map that holds its start and the
    linked symbol it lies in, with the bytes the memory plan placed there."""

    region: str
    symbol: str | None = None
    placed: int | None = None


@attrs.frozen
class PlacedPart:
    """A planned buffer the linked firmware holds in a region."""

    symbol: str
    what: str
    size: int


def _parts(values: Iterable[PlacedPart]) -> tuple[PlacedPart, ...]:
    return tuple(values)


@attrs.frozen
class RegionFill:
    """A region of the board's memory map: its size, the bytes the firmware takes in it, and
    the planned buffers among them."""

    name: str
    length: int
    used: int
    parts: tuple[PlacedPart, ...] = attrs.field(default=(), converter=_parts)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "length": self.length, "used": self.used,
                "buffers": [attrs.asdict(p) for p in self.parts]}


@attrs.frozen
class BufferUse:
    """One of the engine's buffers: configured, planned by the engine, needed, used (measured)
    and where the memory plan put it."""

    name: str
    configured: int | None
    planned: int | None
    used: int | None
    needed: int | None = None
    place: BufferPlace | None = None

    def to_json(self) -> dict[str, Any]:
        place = self.place or BufferPlace("")
        return {"name": self.name, "configured": self.configured, "planned": self.planned,
                "needed": self.needed, "used": self.used, "region": place.region or None,
                "symbol": place.symbol, "placed": place.placed}


def _places(values: Mapping[str, BufferPlace]) -> dict[str, BufferPlace]:
    return dict(values)


def _fills(values: Iterable[RegionFill]) -> tuple[RegionFill, ...]:
    return tuple(values)


@attrs.frozen
class MemoryUse:
    """The memory pass's result, as the bundle's ``memory`` section records it."""

    stack: StackUse
    layers: tuple[LayerMemory, ...]
    facts: Mapping[str, int] = attrs.field(factory=dict, converter=_ints)
    places: Mapping[str, BufferPlace] = attrs.field(factory=dict, converter=_places)
    regions: tuple[RegionFill, ...] = attrs.field(default=(), converter=_fills)

    @property
    def buffers(self) -> tuple[BufferUse, ...]:
        """The engine's buffers, by the naming convention (see the module)."""
        names = sorted({k.split(".", 1)[0] for k in self.facts} - {HEAP}
                       | {k for layer in self.layers for k in layer.uses})
        return tuple(BufferUse(n, self.facts.get(f"{n}.size"), self.facts.get(f"{n}.planned"),
                               self._used(n), self.facts.get(f"{n}.needed"),
                               self.places.get(n)) for n in names)

    def addresses(self) -> dict[str, int]:
        """Each buffer's start, as the device sent it (``<buffer>.at``)."""
        return {k.removesuffix(".at"): v for k, v in self.facts.items() if k.endswith(".at")}

    def _used(self, name: str) -> int | None:
        if name in self.facts:
            return self.facts[name]
        per_layer = [layer.uses[name] for layer in self.layers if name in layer.uses]
        return max(per_layer) if per_layer else None

    @property
    def heap(self) -> int | None:
        """Heap bytes taken since start-up (None: nothing linked an allocator)."""
        return self.facts.get(HEAP)

    @property
    def heap_in_inference(self) -> int | None:
        """Heap bytes the inference itself took: anything but 0 is worth knowing."""
        return self.facts.get(HEAP_INFERENCE)

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack.to_json(),
            "buffers": [b.to_json() for b in self.buffers],
            "heap": {"linked": self.heap_in_inference is not None, "used": self.heap,
                     "inference": self.heap_in_inference},
            "facts": dict(self.facts),
            "regions": [r.to_json() for r in self.regions],
            "layers": [layer.to_json() for layer in self.layers],
        }


def memory_use(capture: Capture, engine: MemoryFigures | None = None) -> MemoryUse | None:
    """The memory pass's records judged into one result, with the engine's own figures;
    None when the firmware ran no memory pass."""
    end = capture.first("MEMEND")
    if end is None:
        return None
    known = engine or MemoryFigures()
    deepest = _deepest(capture)
    sent = _layer_uses(capture)
    names = capture.layer_names()
    layers = tuple(
        LayerMemory(i, *names.get(i, (f"layer {i}", "")), stack=deepest[i][0],
                    stack_at_most=deepest[i][1],
                    uses={**known.layers.get(i, {}), **sent.get(i, {})})
        for i in sorted(deepest))
    facts = {**known.whole, **{r.text("name"): r.number("bytes") for r in capture.of("MEMFACT")}}
    whole = StackUse(end.number("size"), end.number("stack"), end.number("base"))
    return MemoryUse(whole, layers, facts)


def _deepest(capture: Capture) -> dict[int, tuple[int, bool]]:
    """Each layer's deepest stack point (a layer entered again: its deepest entry) and whether
    it is only an upper bound (no deeper than the harness's hooks)."""
    deepest: dict[int, tuple[int, bool]] = {}
    for record in capture.of("MEMLAYER"):
        index, stack, floor = (record.number(k) for k in ("idx", "stack", "floor"))
        if index not in deepest or stack > deepest[index][0]:
            deepest[index] = (stack, stack <= floor)
    return deepest


def _layer_uses(capture: Capture) -> dict[int, dict[str, int]]:
    """The engine's figures per layer as the device sent them (the most, for a layer entered
    again)."""
    uses: dict[int, dict[str, int]] = {}
    for record in capture.of("MEMUSE"):
        layer = uses.setdefault(record.number("idx"), {})
        name = record.text("name")
        layer[name] = max(layer.get(name, 0), record.number("bytes"))
    return uses


def memory_from_json(section: Mapping[str, Any] | None) -> MemoryUse | None:
    """The bundle's ``memory`` section read back (its shape checked by the bundle schema);
    None for a bundle without one, or whose firmware ran no memory pass."""
    if not section or "stack" not in section:
        return None
    stack = section["stack"]
    layers = tuple(
        LayerMemory(int(x["index"]), str(x.get("name", "")), str(x.get("op", "")),
                    int(x["stack"]), bool(x.get("stack_at_most", False)),
                    {str(k): int(v) for k, v in (x.get("uses") or {}).items()})
        for x in section.get("layers", []))
    places = {str(b["name"]): BufferPlace(str(b["region"]), b.get("symbol"), b.get("placed"))
              for b in section.get("buffers", []) if b.get("region")}
    regions = tuple(
        RegionFill(str(r["name"]), int(r["length"]), int(r["used"]),
                   tuple(PlacedPart(str(p["symbol"]), str(p["what"]), int(p["size"]))
                         for p in r.get("buffers", [])))
        for r in section.get("regions", []))
    return MemoryUse(StackUse(int(stack["size"]), int(stack["used"]), int(stack["base"])),
                     layers, {str(k): int(v) for k, v in (section.get("facts") or {}).items()},
                     places, regions)
