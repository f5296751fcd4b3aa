"""How one instruction occupies a core's pipeline: the per-instruction half of the cost model.

Each core's table (:mod:`.cortex_m55`, :mod:`.cortex_m4`) turns an instruction into a
:class:`Timing`: the pipe it occupies and for how many cycles, whether it may pair with a
neighbour (dual issue), and its extra cost when it transfers control. The block simulator
(:mod:`.pipeline`) schedules a basic block's timings in order; nothing here knows memory.
"""

from __future__ import annotations

import re
from typing import Literal

import attrs

Pipe = Literal["alu", "ls", "vint", "vfp", "vsys", "none"]

_REGISTER_LIST = re.compile(r"\{([^}]*)\}")


@attrs.frozen
class Timing:
    """One instruction on one core.

    ``cycles``: cycles its pipe is busy (a beat-wise MVE instruction: 2, its two beats);
    ``pipe``: the pipe (scalar ``alu``; the M55's MVE/FP pipes ``ls``, ``vint``, ``vfp``,
    ``vsys``; ``none`` for the M55's dual-issue partners, which take no pipe); ``pairs``: it
    may issue in the same cycle as a neighbouring 16-bit instruction;
    ``taken``: cycles a taken branch adds (pipeline refill); ``load``: it reads memory, so a load
    right after it may overlap its data phase (Cortex-M4's pipelined loads);
    ``offsets_early``: cycles before issue a gather/scatter's vector of offsets must be ready.
    """

    cycles: int
    pipe: Pipe = "alu"
    pairs: bool = False
    taken: int = 0
    load: bool = False
    store: bool = False
    offsets_early: int = 0


def registers_moved(operands: str) -> int:
    """Registers an LDM/STM/PUSH/POP/VLDM/VPUSH list moves (``{r4-r7, lr}`` is 5)."""
    found = _REGISTER_LIST.search(operands)
    if found is None:
        return 1
    count = 0
    for item in found[1].split(","):
        item = item.strip()
        if "-" in item:
            low, high = (re.sub(r"\D", "", part) for part in item.split("-", 1))
            count += int(high) - int(low) + 1 if low and high else 1
        elif item:
            count += 1
    return max(count, 1)


def writes_pc(operands: str) -> bool:
    compact = operands.replace(" ", "")
    return compact.startswith("pc,") or "pc}" in compact
