"""Where the model, the arenas and the code go: a plan against the board's memory map.

Before anything is fetched or compiled, every buffer an engine declares (``hpx_plan_memory``)
is placed in a region of the board: the region the user named by its use word
(``model.location: flash``), or else the first of the buffer's preferred words whose region
has room, keeping the defaults whenever they fit. The code counts where the board keeps code,
with the engine's estimate. A plan that cannot fit is refused in one sentence that names the
region, the sizes and the option that would fix it; an overflow the linker still finds becomes
the same sentence (:func:`overflow_error`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from hpx_core.boards import Board, MemoryRegion
from hpx_core.contract import BufferNeed, BufferPlacement, MemoryLayout, MemoryNeeds
from hpx_core.errors import ConfigError

READ_ONLY = ("code", "flash", "psram", "sram", "tcm")  # a model: code memory first
WRITABLE = ("data", "sram", "psram", "tcm")  # an arena: the default data memory first
CODE_WORDS = ("code", "flash")  # where a board keeps its code, in this order
ALIGN = 16


def _align(size: int) -> int:
    return (size + ALIGN - 1) // ALIGN * ALIGN


def _section(region: MemoryRegion, need: BufferNeed) -> str | None:
    return region.zero if need.writable else region.init


def words_for(need: BufferNeed) -> tuple[str, ...]:
    """The use words a buffer may be placed by, in order of preference."""
    return need.prefer or (WRITABLE if need.writable else READ_ONLY)


def _places(board: Board, need: BufferNeed, words: Sequence[str]) -> list[BufferPlacement]:
    found: dict[str, BufferPlacement] = {}
    for word in words:
        for region in board.regions_for(word):
            section = _section(region, need)
            if section is not None and region.name not in found:
                found[region.name] = BufferPlacement(need, region.name, word, section,
                                                     chosen=need.location is not None)
    return list(found.values())


def _candidates(board: Board, need: BufferNeed) -> list[BufferPlacement]:
    if not need.location:
        return _places(board, need, words_for(need))
    places = _places(board, need, (need.location,))
    if not places:
        possible = sorted({word for region in board.memory if _section(region, need) is not None
                           for word in region.uses if word in words_for(need)})
        raise ConfigError(
            f"{need.option} is {need.location}, but {board.name} has no {need.location} memory "
            f"that can hold the {need.what}",
            f"choose one of: {', '.join(possible)}" if possible else
            f"{board.name} has no memory for it",
        )
    return places


def code_region(board: Board) -> MemoryRegion | None:
    """The region the board's linker script puts code and constants in."""
    return next((r for word in CODE_WORDS for r in board.regions_for(word)), None)


def _loads(board: Board, placed: Sequence[BufferPlacement], code: int) -> dict[str, int]:
    loads = {region.name: 0 for region in board.memory}
    home = code_region(board)
    if home is not None:
        loads[home.name] += code
    for placement in placed:
        loads[placement.region] += _align(placement.need.size)
    return loads


def _overflowing(board: Board, placed: Sequence[BufferPlacement], code: int
                 ) -> MemoryRegion | None:
    loads = _loads(board, placed, code)
    return next((r for r in board.memory if loads[r.name] > r.length), None)


def plan_layout(board: Board, needs: MemoryNeeds) -> MemoryLayout:
    """Place every buffer; the defaults when they fit, the fewest moves otherwise.

    Plans are tried with the code's likely size first, then with its least: a plan that fits
    only the least is kept (the linker has the last word), one that fits neither is refused.
    """
    choices = [_candidates(board, need) for need in needs.buffers]
    orders = sorted(itertools.product(*(range(len(c)) for c in choices)),
                    key=lambda picks: (sum(1 for pick in picks if pick), picks))
    home = code_region(board)
    for code in (needs.code.likely, needs.code.least):
        for picks in orders:
            placed = [choices[k][pick] for k, pick in enumerate(picks)]
            if _overflowing(board, placed, code) is None:
                return MemoryLayout(board.name, placed, home.name if home else None, needs.code)
    defaults = [places[0] for places in choices]
    region = _overflowing(board, defaults, needs.code.least)
    assert region is not None  # the defaults are one of the orders tried
    layout = MemoryLayout(board.name, defaults, home.name if home else None, needs.code)
    raise overflow_error(board, layout, region.name, code=needs.code.least, excess=None,
                         measured=False)


def every_layout(board: Board, needs: MemoryNeeds) -> list[MemoryLayout]:
    """Every plan that places each buffer in a region its use words allow (whatever the user
    chose) and fits with the code's likely size: the alternatives a what-if prices. The order
    is plan_layout's: the defaults first, then by how many buffers moved."""
    choices = [_places(board, need, words_for(need)) for need in needs.buffers]
    home = code_region(board)
    layouts = []
    for picks in sorted(itertools.product(*(range(len(c)) for c in choices)),
                        key=lambda picks: (sum(1 for pick in picks if pick), picks)):
        placed = [choices[k][pick] for k, pick in enumerate(picks)]
        if _overflowing(board, placed, needs.code.likely) is None:
            layouts.append(MemoryLayout(board.name, placed, home.name if home else None,
                                        needs.code))
    return layouts


def _free(board: Board, placed: Sequence[BufferPlacement], code: int) -> dict[str, int]:
    loads = _loads(board, placed, code)
    return {r.name: r.length - loads[r.name] for r in board.memory}


def _moves(board: Board, layout: MemoryLayout, region: str, code: int) -> list[str]:
    """Options that would fix the region: a buffer there moved to where it fits, or made
    smaller."""
    free = _free(board, layout.placements, code)
    inside = sorted((p for p in layout.placements if p.region == region),
                    key=lambda p: -p.need.size)
    fixes = []
    for placement in inside:
        need = placement.need
        others = [p for p in _places(board, need, words_for(need))
                  if p.region != region and free[p.region] >= _align(need.size)]
        if others:
            target = others[0]
            fixes.append(f"{need.option}: {target.word} ({target.region}, "
                         f"{free[target.region]:,} bytes free)")
        elif need.resize:
            fixes.append(f"a smaller {need.resize}")
    return fixes


def overflow_error(board: Board, layout: MemoryLayout, region: str, *, code: int,
                   excess: int | None, measured: bool) -> ConfigError:
    """The one sentence for a region that cannot hold what was placed in it.

    Before compiling ``code`` is the engine's least estimate; after a link it is what the
    linker's overflow says the code took (``measured``) and ``excess`` is the linker's count.
    """
    target = next(r for r in board.memory if r.name == region)
    parts = []
    if layout.code_region == region:
        parts.append(f"the code ({'' if measured else 'at least '}{code:,} bytes)")
    for placement in layout.placements:
        if placement.region == region:
            parts.append(f"the {placement.need.what} ({placement.need.size:,} bytes)")
    if excess is None:
        excess = _loads(board, layout.placements, code)[region] - target.length
    fixes = _moves(board, layout, region, code)
    held = ", ".join(parts[:-1]) + f" and {parts[-1]}" if len(parts) > 1 else "".join(parts)
    return ConfigError(
        f"region {region} of {board.name} ({target.length:,} bytes) cannot hold {held}: "
        f"{excess:,} bytes too many",
        "set " + " or ".join(fixes) if fixes else _no_fix(board, layout, region),
    )


def _no_fix(board: Board, layout: MemoryLayout, region: str) -> str:
    """Why no option helps: the largest buffer there is larger than any memory for it."""
    inside = [p.need for p in layout.placements if p.region == region]
    if not inside:
        return "the code alone does not fit: a smaller engine build or another board"
    largest = max(inside, key=lambda n: n.size)
    room = max((r for r in board.memory if _section(r, largest) is not None
                and any(r.serves(w) for w in words_for(largest))), key=lambda r: r.length)
    return (f"the {largest.what} fits no memory of {board.name} (the largest that can hold "
            f"it, {room.name}, has {room.length:,} bytes): use a smaller model or a board with "
            "more memory")


def linked_code(board: Board, layout: MemoryLayout, region: str, excess: int) -> int:
    """The code the linker put in ``region``: what it needed (length + excess) less the
    buffers placed there."""
    target = next(r for r in board.memory if r.name == region)
    buffers = sum(_align(p.need.size) for p in layout.placements if p.region == region)
    return max(target.length + excess - buffers, 0)


def link_overflow(board: Board, layout: MemoryLayout, region: str, excess: int | None
                  ) -> ConfigError:
    """The linker's ``region 'X' overflowed by N bytes`` as the plan's sentence."""
    if not any(r.name == region for r in board.memory):
        return ConfigError(f"the linker found region {region} full, which {board.name}'s "
                           "memory map does not list", "the board support's linker script "
                           "and boards.toml disagree; this is an hpx bug")
    if excess is None:  # "will not fit" without a count: the estimate is all there is
        return overflow_error(board, layout, region, code=layout.code.least, excess=None,
                              measured=False)
    return overflow_error(board, layout, region, code=linked_code(board, layout, region, excess),
                          excess=excess, measured=True)
