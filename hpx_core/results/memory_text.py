"""The memory pass's result in words and table cells, the same for ``hpx profile``'s console
and ``hpx results show``: a summary (stack, each buffer configured / planned / needed / used and
where it is, the heap) and per-layer columns (stack, and each buffer the engine reports per
layer)."""

from __future__ import annotations

from hpx_core.results.memory import BufferUse, MemoryUse


def _bytes(value: int | None) -> str:
    return "-" if value is None else f"{value:,} B"


def stack_line(use: MemoryUse) -> str:
    stack = use.stack
    limit = "; it reached the stack's end: it may overflow" if stack.at_limit else ""
    return (f"stack: {stack.used:,} B at the deepest of {stack.size:,} B "
            f"({stack.engine:,} B below where the harness calls the engine){limit}")


def buffer_line(buffer: BufferUse) -> str:
    figures = [f"{label} {_bytes(value)}" for label, value in (
        ("used", buffer.used), ("planned", buffer.planned), ("needed", buffer.needed),
        ("configured", buffer.configured)) if value is not None]
    place = buffer.place
    where = "" if place is None else f" in {place.region}" + (
        f" ({place.symbol})" if place.symbol else "")
    return f"{buffer.name}: {', '.join(figures) or 'no figures'}{where}"


def heap_line(use: MemoryUse) -> str:
    if use.heap_in_inference is None:
        return "heap: no allocator linked"
    if use.heap_in_inference:
        return (f"heap: {_bytes(use.heap)} taken, {use.heap_in_inference:,} B of it by the "
                "inference itself: it allocates")
    return f"heap: {_bytes(use.heap)} taken, none by the inference"


def summary_lines(use: MemoryUse) -> list[str]:
    """The memory summary, one line each: stack, every buffer, heap."""
    return [stack_line(use), *(buffer_line(b) for b in use.buffers), heap_line(use)]


def layer_columns(use: MemoryUse) -> list[str]:
    """Column titles of the per-layer memory figures: stack, then each reported buffer."""
    names = sorted({name for layer in use.layers for name in layer.uses})
    return ["stack B", *(f"{name} B" for name in names)]


def layer_cells(use: MemoryUse, index: int) -> list[str]:
    """The cells of layer ``index`` under :func:`layer_columns` (``<=``: at most, the layer
    stayed within the harness's hooks)."""
    names = sorted({name for layer in use.layers for name in layer.uses})
    layer = next((x for x in use.layers if x.index == index), None)
    if layer is None:
        return ["-"] * (1 + len(names))
    stack = f"<={layer.stack:,}" if layer.stack_at_most else f"{layer.stack:,}"
    return [stack, *(f"{layer.uses[n]:,}" if n in layer.uses else "-" for n in names)]
